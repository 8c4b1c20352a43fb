// WebAssets: the dashboard's static files (daemon/web/), embedded into the
// binary at build time (cmake/embed_web.cmake writes web_assets.cc), so the
// daemon serves them with nothing installed beside it. Immutable; any thread.
#pragma once

#include <span>
#include <string_view>

namespace locsched {

/// One embedded file.
struct WebAsset {
  std::string_view path;          ///< URL path, "/" for index.html
  std::string_view content_type;  ///< from the file's extension
  std::string_view body;          ///< the file's bytes
};

/// Every embedded file.
std::span<const WebAsset> WebAssets();

}  // namespace locsched
