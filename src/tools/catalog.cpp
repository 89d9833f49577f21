#include "tools/catalog.h"

namespace kopt::tools {

// Filled as the tool adapters land; see the issues for the catalogue.
void registerCatalog(mcp::Registrar&, const CatalogOptions&) {}

}  // namespace kopt::tools
