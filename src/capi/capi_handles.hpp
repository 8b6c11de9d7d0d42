// capi_handles.hpp — the akeep/fkeep handles of the SPRAL-compatible C interface (ssids_capi.cpp).
//
// A handle is a heap object registered in a process-wide set, so that a stale, freed or uninitialised
// pointer is never dereferenced: a pointer that is not a live handle of the right kind counts as absent.
// Each handle also carries what SPRAL keeps in its akeep/fkeep for later calls' inform: the analyse and
// factor statistics (with SPRAL's definitions) that factor and solve report again, and whether the phase
// succeeded (a failed analyse or factor leaves its handle allocated but unusable: later calls give -1).
#pragma once
#include <cstdint>

#include "ssids/analyse.hpp"
#include "ssids/factor.hpp"
#include "ssids/memory.hpp"
#include "ssids/spral_ssids.h"

namespace ssids {
namespace capi {

/// The analysis handle.
struct AKeep {
  bool valid = false;     ///< the last analyse succeeded
  Analysis analysis;
  int n = 0;
  bool check = true;      ///< analyse was asked to check the data (coordinate input always is)
  int ordering = 1;       ///< options->ordering at analyse
  int flag = 0;           ///< analyse's warning, the starting point of factor's flag
  int excluded = 0;       ///< empty columns that SPRAL's checked analyse leaves out of its tree
  spral_ssids_inform stats{};  ///< analyse's inform (factor and solve repeat parts of it)
  bool remapped = false;  ///< analysed from a copy of the caller's arrays (coordinate input, or CSC input
                          ///< without its upper-triangle entries): val must be gathered through src
  Vector<offset_t> src;   ///< remapped: entry k of the analysed arrays is entry src[k] of the caller's
};

/// The factorization handle.
struct FKeep {
  bool valid = false;  ///< the last factor succeeded
  Factors factors;
  bool posdef = false;
  spral_ssids_inform stats{};  ///< factor's inform (solve repeats it)
};

/// The live analysis handle at p, or nullptr.
AKeep* as_akeep(const void* p);
/// The live factorization handle at p, or nullptr.
FKeep* as_fkeep(const void* p);
/// *slot's handle when it is a live one, else a new registered handle stored in *slot.
AKeep* akeep_in(void** slot);
FKeep* fkeep_in(void** slot);
/// Releases the handle at *slot when it is a live one of that kind; *slot becomes NULL either way.
void free_akeep(void** slot);
void free_fkeep(void** slot);

}  // namespace capi
}  // namespace ssids
