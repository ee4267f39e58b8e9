// Writing PNG images with libpng.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace ppk::cli {

// Writes an 8-bit greyscale PNG of `height` rows of `width` pixels (`pixels` row by row, 0 black,
// 255 white) to `out`; `name` is the file's name in errors (InputError).
void write_greyscale_png(std::ostream& out, const std::string& name, int width, int height,
                         const std::vector<unsigned char>& pixels);

}  // namespace ppk::cli
