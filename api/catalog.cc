#include "mapr/catalog.h"

#include <string>
#include <vector>

#include "runtime/aggregate.h"
#include "runtime/function.h"

namespace mapr {

std::vector<CatalogEntry> AggregateCatalog() {
  std::vector<CatalogEntry> out;
  for (const runtime::AggregateFunction* a : runtime::Aggregates()) {
    const std::string name(a->info.name);
    const char* args = a->info.max_count > 0 ? "(x, k)"
                       : a->info.takes_width ? "(x, w)"
                                             : "(x)";
    out.push_back({name, name + args, std::string(a->info.summary)});
  }
  return out;
}

std::vector<CatalogEntry> FunctionCatalog() {
  std::vector<CatalogEntry> out;
  for (const runtime::ScalarFunction* f : runtime::ScalarFunctions()) {
    out.push_back({std::string(f->info.name), std::string(f->info.usage),
                   std::string(f->info.summary)});
  }
  return out;
}

}  // namespace mapr
