// capi_handles.cpp — registry of the C interface's handles (see capi_handles.hpp).
#include "capi/capi_handles.hpp"

#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_set>

namespace ssids {
namespace capi {

namespace {

// Both handle kinds live in one set, so each carries a tag that tells them apart.
constexpr std::uint32_t akeep_tag = 0x414b4550u, fkeep_tag = 0x464b4550u;
struct AHandle {
  std::uint32_t tag = akeep_tag;
  AKeep keep;
};
struct FHandle {
  std::uint32_t tag = fkeep_tag;
  FKeep keep;
};

std::mutex registry_mutex;
std::unordered_set<const void*>& registry() {
  static std::unordered_set<const void*> live;
  return live;
}
bool is_live(const void* p) {
  if (!p) return false;
  std::lock_guard<std::mutex> lock(registry_mutex);
  return registry().count(p) != 0;
}
/// A new registered handle; owned by a unique_ptr until registered, so that a failed registration leaks nothing.
template <class H>
H* new_handle() {
  std::unique_ptr<H> fresh(new H);
  std::lock_guard<std::mutex> lock(registry_mutex);
  registry().insert(fresh.get());
  return fresh.release();
}
bool unregister(const void* p) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  return registry().erase(p) != 0;
}

template <class H>
H* live(const void* p, std::uint32_t tag) {
  if (!is_live(p) || static_cast<const H*>(p)->tag != tag) return nullptr;
  return static_cast<H*>(const_cast<void*>(p));
}

}  // namespace

AKeep* as_akeep(const void* p) {
  AHandle* h = live<AHandle>(p, akeep_tag);
  return h ? &h->keep : nullptr;
}

FKeep* as_fkeep(const void* p) {
  FHandle* h = live<FHandle>(p, fkeep_tag);
  return h ? &h->keep : nullptr;
}

AKeep* akeep_in(void** slot) {
  if (AHandle* h = live<AHandle>(*slot, akeep_tag)) return &h->keep;
  AHandle* h = new_handle<AHandle>();
  *slot = h;
  return &h->keep;
}

FKeep* fkeep_in(void** slot) {
  if (FHandle* h = live<FHandle>(*slot, fkeep_tag)) return &h->keep;
  FHandle* h = new_handle<FHandle>();
  *slot = h;
  return &h->keep;
}

void free_akeep(void** slot) {
  if (AHandle* h = live<AHandle>(*slot, akeep_tag))
    if (unregister(h)) delete h;
  *slot = nullptr;
}

void free_fkeep(void** slot) {
  if (FHandle* h = live<FHandle>(*slot, fkeep_tag))
    if (unregister(h)) delete h;
  *slot = nullptr;
}

}  // namespace capi
}  // namespace ssids
