// PLACEHOLDER — replaced by the real analyse phase.
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"
namespace ssids {
Analysis analyse(const CscView&, const Options&, Inform&, const index_t*) {
  throw Error(flag::unimplemented, "analyse not implemented yet");
}
}  // namespace ssids
