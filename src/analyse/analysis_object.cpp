// analysis_object.cpp — accessors of the public Analysis object (a view of detail::Symbolic).
#include "analyse/symbolic.hpp"
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"

namespace ssids {

namespace {
const detail::Symbolic& need(const std::shared_ptr<const detail::Symbolic>& s) {
  if (!s) throw Error(flag::call_sequence, "the analysis is empty: call analyse() first");
  return *s;
}
}  // namespace

index_t Analysis::n() const { return need(sym_).n; }
offset_t Analysis::nnz() const { return need(sym_).nnz; }
index_t Analysis::num_sup() const { return need(sym_).nsup; }
index_t Analysis::num_levels() const { return need(sym_).num_levels; }
index_t Analysis::maxfront() const { return need(sym_).maxfront; }
index_t Analysis::maxsupernode() const { return need(sym_).maxsupernode; }
offset_t Analysis::num_factor() const { return need(sym_).num_factor; }
offset_t Analysis::num_flops() const { return need(sym_).num_flops; }
offset_t Analysis::memory_host() const { return need(sym_).memory_host; }
Vector<index_t> Analysis::order() const {
  const auto& s = need(sym_);
  return Vector<index_t>(s.invp.begin(), s.invp.end());
}

}  // namespace ssids
