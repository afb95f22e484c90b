// The query language's keywords, listed once. The PEGTL grammar spells each
// as a rule (parser/grammar.h); grammar_test.cc checks that these lists and
// the grammar's `clause_keyword` and `reserved` rules agree, and that the
// grammar's hints name every clause keyword.
#ifndef MAPR_PARSER_KEYWORDS_H_
#define MAPR_PARSER_KEYWORDS_H_

#include <string_view>

namespace mapr::parser {

// The words that start a clause (case-insensitive).
inline constexpr std::string_view kClauseKeywords[] = {
    "select", "from",     "where", "set",     "group",     "having",   "order",
    "rorder", "interval", "limit", "outfile", "logformat", "multiline"};

// The words that cannot be a bare field name: the clause keywords and the
// condition words. ToString() backticks a field with one of these names.
inline constexpr std::string_view kReservedWords[] = {
    "select",    "from",   "where",    "set",   "group",   "having",
    "order",     "rorder", "interval", "limit", "outfile", "logformat",
    "multiline", "and",    "or",       "not",   "as"};

}  // namespace mapr::parser

#endif  // MAPR_PARSER_KEYWORDS_H_
