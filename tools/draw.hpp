// tools/draw.hpp -- `tessera layout draw` (dispatched by tools/layout_cmd.cpp).
#pragma once

namespace tessera::cli {

// tessera layout draw <layout> [-o file.svg]; argv[0] is "draw".
int run_layout_draw(int argc, char** argv);

}  // namespace tessera::cli
