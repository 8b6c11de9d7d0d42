// PLACEHOLDER — replaced by the real generators.
#include "ssids/generate.hpp"
#include "ssids/error.hpp"
namespace ssids {
namespace { [[noreturn]] void todo() { throw Error(flag::unimplemented, "generators not implemented yet"); } }
SymmetricMatrix generate_laplace2d(index_t) { todo(); }
SymmetricMatrix generate_laplace3d(index_t, double) { todo(); }
std::int64_t laplace3d_num_neg(index_t, double, std::int64_t*) { todo(); }
SymmetricMatrix generate_kkt_qp(index_t, index_t, double, std::uint64_t) { todo(); }
SymmetricMatrix generate_stokes(index_t) { todo(); }
CsrMatrix generate_convdiff(index_t, double) { todo(); }
CsrMatrix generate_banded(index_t, index_t, double, std::uint64_t) { todo(); }
std::string generator_help() { return ""; }
SymmetricMatrix load_symmetric(const std::string&, MatrixReport*) { todo(); }
CsrMatrix load_general(const std::string&, MatrixReport*) { todo(); }
}  // namespace ssids
