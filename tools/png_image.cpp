#include "png_image.hpp"

#include <png.h>

#include <csetjmp>
#include <cstring>
#include <ostream>

#include "ppk/core/data.hpp"

namespace ppk::cli {
namespace {

// What libpng's callbacks share: the stream, and the first error's message.
struct PngSink {
  std::ostream* out;
  char error[256];
};

// libpng reports errors through this function, which must not return: it keeps the message and
// jumps back to the setjmp in write_png_rows.
[[noreturn]] void on_png_error(png_structp png, png_const_charp message) {
  auto* sink = static_cast<PngSink*>(png_get_error_ptr(png));
  std::strncpy(sink->error, message, sizeof sink->error - 1);
  png_longjmp(png, 1);
}

void on_png_warning(png_structp, png_const_charp) {}

void on_png_write(png_structp png, png_bytep data, png_size_t length) {
  auto* sink = static_cast<PngSink*>(png_get_io_ptr(png));
  if (!sink->out->write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(length)))
    png_error(png, "write error");
}

void on_png_flush(png_structp png) {
  auto* sink = static_cast<PngSink*>(png_get_io_ptr(png));
  sink->out->flush();
}

// The libpng calls, with nothing between setjmp and a possible longjmp that has a destructor.
// Returns false with sink->error set on failure.
bool write_png_rows(png_structp png, png_infop info, PngSink* sink, int width, int height, const unsigned char* pixels) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_write_fn(png, sink, on_png_write, on_png_flush);
  png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), 8, PNG_COLOR_TYPE_GRAY,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < height; ++y)
    png_write_row(png, const_cast<png_bytep>(pixels + static_cast<std::size_t>(y) * static_cast<std::size_t>(width)));
  png_write_end(png, nullptr);
  return true;
}

}  // namespace

void write_greyscale_png(std::ostream& out, const std::string& name, int width, int height,
                         const std::vector<unsigned char>& pixels) {
  PngSink sink{&out, {}};
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, on_png_error, on_png_warning);
  png_infop info = png != nullptr ? png_create_info_struct(png) : nullptr;
  const bool written = info != nullptr && write_png_rows(png, info, &sink, width, height, pixels.data());
  png_destroy_write_struct(&png, info != nullptr ? &info : nullptr);
  if (!written)
    throw InputError(name + ": cannot write the PNG image: " + (sink.error[0] ? sink.error : "out of memory"));
}

}  // namespace ppk::cli
