// cublas_loader.cpp — see cublas_loader.hpp.
#include "cuda/cublas_loader.hpp"

#include <dlfcn.h>

#include <string>

#include "ssids/error.hpp"

namespace ssids {
namespace detail {

namespace {

/// The soname of the cuBLAS this file was compiled against (libcublas.so.<major>), then the unversioned name.
void* open_cublas(std::string& tried) {
  const std::string versioned = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
  tried = versioned;
  if (void* h = dlopen(versioned.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
  tried += ", libcublas.so";
  return dlopen("libcublas.so", RTLD_NOW | RTLD_LOCAL);
}

template <class F>
void bind(void* lib, const char* name, F& f, const std::string& libname) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f) throw Error(flag::cublas, "cuBLAS (" + libname + ") lacks " + name);
}

CublasApi load() {
  std::string tried;
  void* lib = open_cublas(tried);
  if (!lib) {
    const char* why = dlerror();
    throw Error(flag::cublas, "cannot load cuBLAS (" + tried + "): " + (why ? why : "not found"));
  }
  // the library stays loaded for the life of the process (handles may outlive any one factorization)
  CublasApi api{};
  bind(lib, "cublasCreate_v2", api.create, tried);
  bind(lib, "cublasDestroy_v2", api.destroy, tried);
  bind(lib, "cublasSetStream_v2", api.set_stream, tried);
  bind(lib, "cublasDgemm_v2", api.dgemm, tried);
  return api;
}

}  // namespace

const CublasApi& cublas() {
  static const CublasApi api = load();  // a failed load throws and is retried by the next call
  return api;
}

}  // namespace detail
}  // namespace ssids
