// PLACEHOLDER — replaced by the real reader.
#include "ssids/matrix_market.hpp"
#include "ssids/error.hpp"
namespace ssids {
namespace { [[noreturn]] void todo() { throw Error(flag::unimplemented, "matrix market I/O not implemented yet"); } }
int MatrixReport::warning_flag() const { return 0; }
SymmetricMatrix read_symmetric(const std::string&, MatrixReport*, double) { todo(); }
CsrMatrix read_general(const std::string&, MatrixReport*) { todo(); }
DenseMatrix read_dense(const std::string&) { todo(); }
SymmetricMatrix parse_symmetric(const char*, std::size_t, MatrixReport*, double) { todo(); }
CsrMatrix parse_general(const char*, std::size_t, MatrixReport*) { todo(); }
DenseMatrix parse_dense(const char*, std::size_t) { todo(); }
void write_symmetric(const std::string&, const SymmetricMatrix&) { todo(); }
void write_general(const std::string&, const CsrMatrix&) { todo(); }
void write_dense(const std::string&, const DenseMatrix&) { todo(); }
}  // namespace ssids
