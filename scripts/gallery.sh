#!/usr/bin/env bash
# scripts/gallery.sh -- regenerate the pictures in docs/gallery/ with the `tessera` command.
#
#   scripts/gallery.sh                 builds tessera_cli in ${TESSERA_BUILD_DIR:-build} and draws
#   TESSERA=/path/to/tessera scripts/gallery.sh   uses that binary instead
#
# Every picture is written by a `tessera` command listed in docs/gallery/README.md (generated
# here, so the commands and the pictures cannot drift apart).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=docs/gallery
if [ -z "${TESSERA:-}" ]; then
  export PATH="/usr/local/cuda/bin:${PATH}"
  BUILD="${TESSERA_BUILD_DIR:-build}"
  if [ ! -f "$BUILD/build.ninja" ] && [ ! -f "$BUILD/Makefile" ]; then
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_BUILD_TESTS=OFF -DTESSERA_BUILD_TOOLS=ON \
          ${TESSERA_CUDA_ARCHITECTURES:+-DTESSERA_CUDA_ARCHITECTURES="$TESSERA_CUDA_ARCHITECTURES"}
  fi
  cmake --build "$BUILD" -j "${TESSERA_JOBS:-$(nproc)}" --target tessera_cli
  TESSERA="$BUILD/tools/tessera"
fi
if ! "$TESSERA" layout draw --help > /dev/null 2>&1; then
  echo "gallery: '$TESSERA layout draw' is not available (tools/layout_cmd.cpp must dispatch 'draw' to run_layout_draw)" >&2
  exit 1
fi
mkdir -p "$OUT"
README="$OUT/README.md"
cat > "$README" <<'HEAD'
# Gallery

Pictures drawn by the `tessera` command; `scripts/gallery.sh` regenerates all of them (and this
page).  Each picture is plain SVG: a grid with row and column headers, a line that says how to
read it, and a legend.

HEAD

# picture <file> <caption> <tessera arguments...>   (the command writes $OUT/<file>)
picture() {
  local file="$1" caption="$2"
  shift 2
  "$TESSERA" "$@" > /dev/null
  local shown="tessera"
  for a in "$@"; do
    case "$a" in
      "$OUT/$file") shown="$shown $file" ;;
      *[\(\)\<\>\ \,\:]*) shown="$shown '$a'" ;;
      *) shown="$shown $a" ;;
    esac
  done
  printf '## %s\n\n```\n%s\n```\n\n![%s](%s)\n\n' "$caption" "$shown" "$caption" "$file" >> "$README"
  echo "  $OUT/$file"
}

echo "gallery: drawing into $OUT"
picture layout_row_major.svg "A row-major 4x8 layout" \
  layout draw '(4,8):(8,1)' -o "$OUT/layout_row_major.svg"
picture layout_hierarchical.svg "A hierarchical layout: each mode is itself (2,4)" \
  layout draw '((2,4),(2,4)):((1,16),(2,4))' -o "$OUT/layout_hierarchical.svg"
picture layout_swizzled.svg "A swizzled layout: Sw<2,0,2> XORs the row into the column" \
  layout draw 'Sw<2,0,2>o(4,4):(4,1)' -o "$OUT/layout_swizzled.svg"
picture tv_copy_128b.svg "Tiled copy: 128 threads (16,8) row-major, 4 values each (one 128-bit float load)" \
  tv draw --copy '(16,8):(8,1)' '(1,4)' --atom-values 4 -o "$OUT/tv_copy_128b.svg"
picture tv_mma_m16n8k16_A.svg "mma.sync m16n8k16: fragment of A (M=16 x K=16)" \
  tv draw --mma m16n8k16 --operand A -o "$OUT/tv_mma_m16n8k16_A.svg"
picture tv_mma_m16n8k16_B.svg "mma.sync m16n8k16: fragment of B (N=8 x K=16)" \
  tv draw --mma m16n8k16 --operand B -o "$OUT/tv_mma_m16n8k16_B.svg"
picture tv_mma_m16n8k16_C.svg "mma.sync m16n8k16: accumulator C (M=16 x N=8)" \
  tv draw --mma m16n8k16 --operand C -o "$OUT/tv_mma_m16n8k16_C.svg"
picture tv_ldmatrix_x4.svg "ldmatrix.x4 row addresses: lane T gives row T%16, columns 8*(T/16).. (V = element of the row)" \
  tv draw --tv '((16,2),8):((1,128),16)' --tile '(16,16)' -o "$OUT/tv_ldmatrix_x4.svg"
picture swizzle_sw333_bf16.svg "Banks of a 128-byte-swizzled bf16 tile: Sw<3,3,3> on (8,64) row-major" \
  swizzle draw 'Sw<3,3,3>' '(8,64):(64,1)' --elem-bytes 2 -o "$OUT/swizzle_sw333_bf16.svg"
picture swizzle_none_bf16.svg "The same tile without a swizzle: a column of 16-byte units sits in 4 banks" \
  swizzle draw 'Sw<0,3,3>' '(8,64):(64,1)' --elem-bytes 2 -o "$OUT/swizzle_none_bf16.svg"
picture bank_ldmatrix_row_major.svg "ldmatrix.x4 on a row-major 128x64 bf16 tile: 8-way conflicts, 32 wavefronts" \
  analyze smem --layout '(128,64):(64,1)' --elem-bytes 2 --inst ldmatrix.x4 \
  --tv '((16,2),8):((1,128),16)' --tile '<16,16>' --svg "$OUT/bank_ldmatrix_row_major.svg"
picture bank_ldmatrix_sw333.svg "The same with Sw<3,3,3>: conflict-free, 4 wavefronts" \
  analyze smem --layout 'Sw<3,3,3>o(128,64):(64,1)' --elem-bytes 2 --inst ldmatrix.x4 \
  --tv '((16,2),8):((1,128),16)' --tile '<16,16>' --svg "$OUT/bank_ldmatrix_sw333.svg"
picture bank_column_float.svg "A column of a row-major 32x32 float tile: 32-way" \
  analyze smem --layout '(32,32):(32,1)' --elem-bytes 4 --inst ld.32 --tv '(32,32):(1,32)' \
  --svg "$OUT/bank_column_float.svg"
picture bank_column_padded.svg "The same column with one float of padding per row: conflict-free" \
  analyze smem --layout '(32,32):(33,1)' --elem-bytes 4 --inst ld.32 --tv '(32,32):(1,32)' \
  --svg "$OUT/bank_column_padded.svg"
echo "gallery: wrote $README"
