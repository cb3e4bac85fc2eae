#include "sim/collision/ccd_benchmark.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "sim/core/error.h"

namespace cb {
namespace {

// num/den of decimal integers; exact when den is a power of two and num fits a double exactly
double parse_rational(const std::string& num, const std::string& den, const std::string& where) {
  char* e1 = nullptr;
  char* e2 = nullptr;
  double n = std::strtod(num.c_str(), &e1);
  double d = std::strtod(den.c_str(), &e2);
  if (num.empty() || den.empty() || *e1 || *e2 || !(d > 0))
    throw Error(where + ": bad rational '" + num + "/" + den + "'");
  int exp = 0;
  if (std::frexp(d, &exp) != 0.5) throw Error(where + ": denominator " + den + " is not a power of two");
  // the numerator must be an integer that a double holds exactly: print it back
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.0f", n);
  std::string digits = num[0] == '+' ? num.substr(1) : num;
  if (digits != buf && !(n == 0 && (digits == "-0" || digits == "0")))
    throw Error(where + ": numerator " + num + " is not exactly a double");
  return n / d;
}

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : line) {
    if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (c != ' ' && c != '\r' && c != '\t') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

}  // namespace

CcdBenchFile read_ccd_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open CCD benchmark file '" + path + "'");
  CcdBenchFile f;
  f.path = path;
  f.edge_edge = path.find("edge-edge") != std::string::npos;
  std::string line;
  int row = 0, lineno = 0;
  CcdQuery q;
  int truth = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.find_first_not_of(" \r\t") == std::string::npos) continue;
    std::string where = path + ":" + std::to_string(lineno);
    auto cols = split_commas(line);
    if (cols.size() != 7) throw Error(where + ": expected 7 columns, found " + std::to_string(cols.size()));
    Vec3d p(parse_rational(cols[0], cols[1], where), parse_rational(cols[2], cols[3], where),
            parse_rational(cols[4], cols[5], where));
    int gt = std::atoi(cols[6].c_str());
    if (row == 0) truth = gt;
    if (gt != truth) throw Error(where + ": truth flag changes inside a query");
    (row < 4 ? q.x0[row] : q.x1[row - 4]) = p;
    if (++row == 8) {
      f.queries.push_back(q);
      f.truth.push_back(uint8_t(truth != 0));
      row = 0;
    }
  }
  if (row != 0) throw Error(path + ": row count is not a multiple of 8");
  return f;
}

void CcdBenchStats::add(const CcdBenchStats& o) {
  queries += o.queries;
  collisions += o.collisions;
  false_negatives += o.false_negatives;
  false_positives += o.false_positives;
  capped += o.capped;
  seconds += o.seconds;
  max_seconds = max_seconds > o.max_seconds ? max_seconds : o.max_seconds;
  boxes += o.boxes;
}

CcdBenchStats run_ccd_file(const CcdBenchFile& file, const CcdOptions& opt, int repeats) {
  using clock = std::chrono::steady_clock;
  CcdBenchStats s;
  for (size_t i = 0; i < file.queries.size(); ++i) {
    const CcdQuery& q = file.queries[i];
    CcdResult r;
    double best = 1e30;
    for (int k = 0; k < (repeats > 1 ? repeats : 1); ++k) {
      auto t0 = clock::now();
      r = file.edge_edge ? ccd_edge_edge(q.x0, q.x1, opt) : ccd_vertex_face(q.x0, q.x1, opt);
      double dt = std::chrono::duration<double>(clock::now() - t0).count();
      best = dt < best ? dt : best;
    }
    s.seconds += best;
    s.max_seconds = best > s.max_seconds ? best : s.max_seconds;
    ++s.queries;
    s.boxes += r.boxes;
    s.capped += r.capped ? 1 : 0;
    if (file.truth[i]) ++s.collisions;
    if (file.truth[i] && !r.hit) ++s.false_negatives;
    if (!file.truth[i] && r.hit) ++s.false_positives;
  }
  return s;
}

}  // namespace cb
