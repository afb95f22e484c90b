// mapr/catalog.h: what the query language offers, for help texts and tools.
//
// The aggregates a select item may call (`count`, `avg`, `p95`, ...) and the
// functions `set` may apply (`time`, `bucket`, `duration`, ...), each with
// its usage and one-line summary, in the order `mapr --help` lists them.
// The lists come from the engine's own catalogs, so they are never out of
// step with what Query::Compile accepts.
//
// Example:
//   for (const mapr::CatalogEntry& f : mapr::FunctionCatalog()) {
//     std::cout << f.usage << "  " << f.summary << "\n";
//   }
//
// Thread safety: both functions may be called from any thread.
#ifndef MAPR_MAPR_CATALOG_H_
#define MAPR_MAPR_CATALOG_H_

#include <string>
#include <vector>

#include "mapr/export.h"

namespace mapr {

struct MAPR_EXPORT CatalogEntry {
  // As written in a query: `avg`, `bucket`.
  std::string name;
  // How a call is written: `avg(x)`, `bucket(x, width)`.
  std::string usage;
  // One line (it may be long; wrap it for a terminal).
  std::string summary;
};

// Every aggregate of select items.
MAPR_EXPORT std::vector<CatalogEntry> AggregateCatalog();
// Every function of `set $v = f(x)`.
MAPR_EXPORT std::vector<CatalogEntry> FunctionCatalog();

}  // namespace mapr

#endif  // MAPR_MAPR_CATALOG_H_
