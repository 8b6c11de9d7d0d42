#!/usr/bin/env bash
# fuzz/make_corpus.sh — build the seed corpora of the fuzz targets at run time (nothing large is committed).
# Usage: fuzz/make_corpus.sh OUTDIR [MATRICES_DIR]   (MATRICES_DIR defaults to ../shared/matrices)
# Writes OUTDIR/mm  (Matrix Market seeds: slices of the shared matrices — banner, comments, size line rewritten
#                    to the first 24 entries — plain and gzip, whole files under 16 KiB, truncated copies,
#                    and every one-line Matrix Market literal of tests/test_io.cpp, i.e. its malformed cases)
#    and OUTDIR/csc (byte layouts of fuzz_csc.cpp: small valid, malformed and factorizable inputs).
# Needs only bash, coreutils, gzip, awk and printf.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: make_corpus.sh OUTDIR [MATRICES_DIR]}"
mats="${2:-$here/../../shared/matrices}"
mkdir -p "$out/mm" "$out/csc"

# 1. slices and small whole files of the shared matrices
if [ -d "$mats" ]; then
  for f in "$mats"/*.mtx.gz; do
    [ -e "$f" ] || continue
    b="$(basename "$f" .mtx.gz)"
    zcat "$f" | awk -v k=24 '
      BEGIN { sized = 0; taken = 0 }
      sized == 0 && ($0 ~ /^%/ || $0 ~ /^[ \t]*$/) { print; next }
      sized == 0 { if (NF == 3) { n = ($3 < k) ? $3 : k; print $1, $2, n } else { n = k; print }; sized = 1; next }
      taken < n { print; taken++ }' > "$out/mm/slice_$b.mtx" || true
    gzip -n -c "$out/mm/slice_$b.mtx" > "$out/mm/slice_$b.mtx.gz"
    head -c 200 "$out/mm/slice_$b.mtx" > "$out/mm/trunc_$b.mtx"
    if [ "$(stat -c %s "$f")" -lt 4096 ] && [ "$(zcat "$f" | wc -c)" -lt 16384 ]; then
      cp "$f" "$out/mm/whole_$b.mtx.gz"
    fi
  done
fi

# 2. the one-line Matrix Market literals of the reader tests (valid and malformed cases)
i=0
grep -o '"\\\?n\?%\?%MatrixMarket[^"]*"' "$here/../tests/test_io.cpp" | sed 's/^"//; s/"$//' | sort -u |
  while IFS= read -r lit; do
    i=$((i + 1))
    printf '%b' "$lit" > "$out/mm/test_io_$i.mtx"
  done
# hand-made edge cases: huge size line, gzip magic with garbage, dense, CRLF, Fortran exponents
printf '%%%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 1\n1 1 1\n' > "$out/mm/edge_huge.mtx"
printf '\037\213\010\000garbage' > "$out/mm/edge_badgz.mtx.gz"
printf '%%%%MatrixMarket matrix array real general\n2 2\n1\n2.5D+01\n-3\n4e-320\n' > "$out/mm/edge_dense.mtx"
printf '%%%%MatrixMarket matrix coordinate real symmetric\r\n3 3 4\r\n1 1 4\r\n2 1 -1\r\n2 2 4\r\n3 3 1.0d0\r\n' > "$out/mm/edge_crlf.mtx"

# 3. fuzz_csc seeds: b0=n, b1=flags, b2=nemin+2, b3=cpu_block_size, then 2-byte ptr entries, then rows
#    delta mode (0x04) + factor (0x10): tridiagonal-ish 4x4, base 0 and base 1, posdef and indefinite
printf '\004\024\042\200\000\000\002\000\002\000\002\000\001\000\000\001\000\001\000\001\003\005\003' > "$out/csc/tri4.bin"
printf '\004\025\042\200\000\000\002\000\002\000\002\000\001\000\001\002\001\002\002\003\003\004\004' > "$out/csc/tri4_base1.bin"
printf '\004\034\003\001\000\000\002\000\002\000\002\000\001\000\000\001\000\001\000\001\003\005\003' > "$out/csc/tri4_posdef.bin"
printf '\003\000\042\200\000\000\002\000\001\000\003\000\000\001\002\001\002\002' > "$out/csc/raw3.bin"
printf '\003\000\042\200\000\000\005\000\002\000\003\000\000\001\002' > "$out/csc/bad_ptr.bin"
printf '\003\000\042\200\000\000\001\000\002\000\003\000\120\121\122' > "$out/csc/out_of_range.bin"
printf '\375\000\042\200' > "$out/csc/neg_n.bin"
printf '\003\100\042\200\000\000\001\000\002\000\003\000' > "$out/csc/null_ptr.bin"
printf '\003\040\042\200\000\000\001\000\002\000\003\000' > "$out/csc/null_row.bin"
printf '\003\002\007\200\000\000\001\000\002\000\003\000\000\001\002' > "$out/csc/bad_base.bin"
echo "corpus: $(ls "$out/mm" | wc -l) Matrix Market seeds, $(ls "$out/csc" | wc -l) CSC seeds in $out"
