// A coarse starting guess for the PCG of the implicit step: the Galerkin
// correction of the guess over one uniform velocity change per cloth piece.
//
// Why: block-Jacobi PCG removes error of short wavelength quickly and error of
// long wavelength slowly (a CG iteration carries information one vertex ring
// further). A free-falling sheet's whole answer is long-wavelength: from the
// guess v every vertex must gain h g, and the PCG at 183 x 183 vertices stopped
// at its 200-iteration cap every step of the fall, 6 % of its residual left
// (RESULTS.md, twentieth session). A uniform change of one piece is exactly
// that answer, and any uniform change is a long-wavelength correction the
// Jacobi steps would need hundreds of iterations for.
//
// What: with r = S (b - A x) the filtered residual of the guess (kg m/s), each
// piece p gets the unit direction d_p of the sum of r over its free vertices
// (the piece's net impulse residual) and the column z_p = d_p on its free
// vertices, 0 elsewhere. The correction minimises the A-norm of the error over
// x + span{z_p}:  E c = g,  E_pq = z_p . A z_q (kg; P x P, symmetric positive
// definite),  g_p = z_p . r (kg m/s),  x += sum_p c_p z_p (c in m/s).
// A Galerkin step never makes the A-norm error larger, so unlike a guessed
// velocity (the last step's change, or v + h g, wrong for a hanging sheet at
// rest) it cannot hand the PCG a worse start; where the pieces hang still, r and
// the correction are ~0.
//
// Cost: 3P + P^2 sums and P products A z_p (P pieces; r is the residual the
// PCG's start computed already), two small read-backs; pieces past kMaxCoarsePieces are left out (then the
// correction covers the first ones only).
#pragma once

#include <vector>

#include "sim/core/buffer.h"
#include "sim/core/rows_sum.h"
#include "sim/solvers/icloth/system_kernels.h"

namespace cb::icloth {

/// Pieces the correction covers at most (P^2 sums and P products a solve).
constexpr int kMaxCoarsePieces = 8;

/// A piece's vertex range [first, first + count).
struct CoarsePiece {
  int first = 0, count = 0;
};

/// Scratch of coarse_start (backend memory), resized on demand.
struct CoarseScratch {
  DeviceBuffer<Vec3f> z, w;      ///< (nverts) a column z_q, A z_q
  DeviceBuffer<double> sums;     ///< (3P + P^2) the residual's sums, then E
  RowsSumScratch sum;
};

/// What the correction did (statistics).
struct CoarseResult {
  int pieces = 0;           ///< pieces with a nonzero direction
  double a_norm_gain = 0;   ///< g . c = the drop of the error's squared A-norm (kg m^2/s^2)
};

/// Adds the Galerkin correction over the pieces' uniform changes to x (backend
/// memory, nverts; unchanged at pinned vertices). r: the filtered residual
/// S (b - A x) of x as given (backend memory, nverts; 0 at pinned vertices).
CoarseResult coarse_start(const Context& ctx, const SystemView& A, const Vec3f* r, Vec3f* x,
                          const std::vector<CoarsePiece>& pieces, CoarseScratch& s);

}  // namespace cb::icloth
