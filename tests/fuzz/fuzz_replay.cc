// fuzz_replay: a main() for the fuzz targets when there is no libFuzzer (gcc,
// the ASan build). Feeds every file under the given directories (or the given
// files) to LLVMFuzzerTestOneInput once. ctest runs it over tests/fuzz/corpus.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;

// The regular files at `arg`: itself if it is a file, else every file below it, sorted.
std::vector<fs::path> InputsAt(const fs::path& arg) {
  std::vector<fs::path> inputs;
  std::error_code ec;
  if (fs::is_regular_file(arg, ec)) return {arg};
  for (fs::recursive_directory_iterator it(arg, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file()) inputs.push_back(it->path());
  if (ec) std::fprintf(stderr, "fuzz_replay: %s: %s\n", arg.c_str(), ec.message().c_str());
  std::sort(inputs.begin(), inputs.end());
  return inputs;
}

// Runs one file through the target; false if it cannot be read.
bool Replay(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::fprintf(stderr, "fuzz_replay: %s (%zu bytes)\n", file.c_str(), bytes.size());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR_OR_FILE...\n", argv[0]);
    return 2;
  }
  size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    for (const fs::path& file : InputsAt(argv[i])) {
      if (!Replay(file)) {
        std::fprintf(stderr, "fuzz_replay: cannot read %s\n", file.c_str());
        return 1;
      }
      ++replayed;
    }
  }
  std::printf("fuzz_replay: %zu inputs, no invariant broken\n", replayed);
  return replayed > 0 ? 0 : 1;  // an empty corpus means a wrong path, not a pass
}
