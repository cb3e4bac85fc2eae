// Resting obstacle contacts in the I-Cloth solve (resting_contacts.h): a tight
// band on a widening body stays up instead of sliding down and stretching, and
// Coulomb friction on a resting sheet gives the analytic answers on a slope.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/solvers/icloth/solver.h"
#include "sim/world.h"
#include "support/test_support.h"

namespace cb::icloth {
namespace {

std::unique_ptr<World> make_world(const Context& ctx, SceneSpec scene) {
  auto w = std::make_unique<World>(ctx, std::move(scene));
  w->set_solver(make_icloth_solver(ctx, w->model()));
  return w;
}

// A closed band (a tube of cloth, `around` x `rows` vertices) of radius r and
// height `height` (m) around the vertical axis, its lower edge at height y0.
TriMesh band(int around, int rows, float r, float height, float y0) {
  TriMesh m;
  m.source = "test band";
  for (int j = 0; j < rows; ++j)
    for (int i = 0; i < around; ++i) {
      const float a = 6.2831853f * float(i) / float(around);
      m.positions.push_back(Vec3f{r * std::cos(a), y0 + height * float(j) / float(rows - 1), r * std::sin(a)});
    }
  for (int j = 0; j + 1 < rows; ++j)
    for (int i = 0; i < around; ++i) {
      const int a = j * around + i, b = j * around + (i + 1) % around, c = a + around, d = b + around;
      m.tris.push_back(Int3{a, d, b});
      m.tris.push_back(Int3{a, c, d});
    }
  return m;
}

// A band narrower than a ball, set on its upper half: the ball widens below it,
// so sliding down means stretching. Its weight (~0.1 N) needs a tension of
// ~0.02 N/m against the ball's slope: the band should stay put, unstretched.
// With the contact outside the solve (the velocity filter alone,
// obstacle_stiffness = 0) it slides down and stretches by 7.4 % within these 60
// frames; with the resting contacts, 1.4 %.
TEST(IClothRestingContacts, TightBandOnABallStaysUpUnstretched) {
  const float R = 0.2f, r = 0.17f, th = 0.004f;
  const Vec3f centre{0, 0.5f, 0};
  SceneSpec s;
  s.path = "test-band-on-ball";
  ClothSpec c;
  c.name = "band";
  // lower edge where the ball's horizontal radius is r + the thickness
  const float y0 = centre.y + std::sqrt(R * R - (r - th) * (r - th)) - th;
  c.mesh = band(64, 5, r, 0.04f, y0);
  c.material.stretch_stiffness = 2000.f;
  c.material.shear_stiffness = 200.f;
  c.material.thickness = th;
  s.cloths.push_back(c);
  ObstacleSpec ball;
  ball.kind = ObstacleKind::Sphere;
  ball.radius = R;
  ball.pose.t = centre;
  ball.friction = 0.3f;
  s.obstacles.push_back(ball);
  s.dt = 1.f / 60;
  s.substeps = 2;
  for (const Context& ctx : test::backends()) {
    auto wp = make_world(ctx, s);
    World& w = *wp;
    float worst = 0;
    for (int f = 0; f < 60; ++f) {
      w.step();
      ASSERT_FALSE(w.stats().has_nan) << "frame " << f;
      ASSERT_EQ(w.stats().get("intersecting pairs", -1), 0) << "frame " << f;
      worst = std::max(worst, w.stats().max_strain);
    }
    EXPECT_LT(worst, 0.03f) << "the band is not stretched over the ball";
    float low = 1e9f;
    for (const Vec3f& p : w.positions()) low = std::min(low, p.y);
    EXPECT_GT(low, y0 - 0.01f) << "the band has not slid down the ball";
  }
}

// The slopes below: a plane tilted by 20 degrees about z.
constexpr float kSlope = 20.f * 3.14159265f / 180.f;  // rad
const Mat3f kTilt = rotation(Vec3f{0, 0, 1}, kSlope);
const Vec3f kSlopeNormal = kTilt * Vec3f{0, 1, 0}, kUphill = kTilt * Vec3f{1, 0, 0};

// The tilted plane with Coulomb coefficient mu.
ObstacleSpec slope_plane(float mu) {
  ObstacleSpec plane;  // kind Plane: y = 0, normal +y, before the pose
  plane.pose.R = kTilt;
  plane.friction = mu;
  return plane;
}

// Lays a horizontal sheet (made at y = 0) on the slope, `height` m above it.
void lay_on_slope(ClothSpec& c, float height) {
  for (Vec3f& p : c.mesh.positions) p = kTilt * p + kSlopeNormal * height;
}

// Coulomb's answer: how far (m) a body starting at rest slides down the slope
// in t s with friction coefficient mu, 1/2 g (sin - mu cos) t^2.
float coulomb_slide(float mu, float t) {
  return 0.5f * 9.81f * (std::sin(kSlope) - mu * std::cos(kSlope)) * t * t;
}

// A 0.2 m sheet lying on the slope: with mu = 0.6 > tan 20 it stays; with
// mu = 0.1 it slides with a = g (sin 20 - mu cos 20) = 2.43 m/s^2.
float slide_after(const Context& ctx, float mu, float seconds, const char* cg_tolerance = nullptr) {
  SceneSpec s = test::grid_scene(8, 8, 0.2f, 0.2f, 0.f);
  lay_on_slope(s.cloths[0], s.cloths[0].material.thickness);
  s.obstacles.push_back(slope_plane(mu));
  s.dt = 1.f / 60;
  s.substeps = 2;
  auto wp = make_world(ctx, s);
  World& w = *wp;
  if (cg_tolerance) EXPECT_EQ(w.set_solver_param("cg_tolerance", cg_tolerance), "");
  auto centroid = [&] {
    Vec3f c{0, 0, 0};
    for (const Vec3f& p : w.positions()) c += p;
    return c / float(w.positions().size());
  };
  const Vec3f c0 = centroid();
  const int frames = int(std::lround(seconds / s.dt));
  for (int f = 0; f < frames; ++f) {
    w.step();
    EXPECT_FALSE(w.stats().has_nan);
    EXPECT_LT(w.stats().max_strain, 0.02f) << "the sheet slides as a whole";
  }
  return -dot(centroid() - c0, kUphill);  // m, downhill
}

// A 0.4 m sheet on a plane tilted by 20 degrees (plane friction 0.9: it
// holds), a 0.15 m sheet lying on its middle with cloth friction mu: returns how
// far the small sheet slid down relative to the large one (m) after `seconds`
// (it must stay on the large sheet: past its edge it drops onto the plane, whose
// friction catches it), with the solver parameters `params` (name, value).
using Params = std::vector<std::pair<std::string, std::string>>;
float sheet_on_sheet_slide(const Context& ctx, float mu, float seconds, const Params& params) {
  constexpr int kLower = 16;
  SceneSpec s = test::grid_scene(kLower, kLower, 0.4f, 0.4f, 0.f);
  s.cloths[0].material.friction = mu;
  const float th = s.cloths[0].material.thickness;
  ClothSpec upper = test::grid_scene(6, 6, 0.15f, 0.15f, 0.f).cloths[0];
  upper.material = s.cloths[0].material;
  upper.name = "upper";
  lay_on_slope(s.cloths[0], th);
  lay_on_slope(upper, 2.25f * th);  // a proximity distance (1.25 thickness) above the lower one
  s.cloths.push_back(upper);
  s.obstacles.push_back(slope_plane(0.9f));
  s.dt = 1.f / 60;
  s.substeps = 2;
  auto wp = make_world(ctx, s);
  World& w = *wp;
  for (const auto& [name, value] : params) EXPECT_EQ(w.set_solver_param(name, value), "") << name;
  const size_t nl = kLower * kLower;
  auto offset = [&] {  // the small sheet's centroid minus the large one's, along the slope, m
    const std::vector<Vec3f> x = w.positions();
    Vec3f lo{0, 0, 0}, up{0, 0, 0};
    for (size_t i = 0; i < nl; ++i) lo += x[i];
    for (size_t i = nl; i < x.size(); ++i) up += x[i];
    return dot(up / float(x.size() - nl) - lo / float(nl), kUphill);
  };
  const float d0 = offset();
  const int frames = int(std::lround(seconds / s.dt));
  for (int f = 0; f < frames; ++f) {
    w.step();
    EXPECT_FALSE(w.stats().has_nan);
    EXPECT_EQ(w.stats().get("intersecting pairs", -1), 0) << "frame " << f;
  }
  return d0 - offset();
}

// The cloth-cloth friction of the repulsion filter alone (proximity_stiffness 0;
// the default has the pairs as springs in the solve, tested below).
TEST(IClothRestingContacts, SheetOnASheetHoldsBelowTheFrictionAngleWithTheFilterAlone) {
  for (const Context& ctx : test::backends())
    EXPECT_LT(std::fabs(sheet_on_sheet_slide(ctx, 0.6f, 1.f, {{"proximity_stiffness", "0"}})), 3e-3f);
}

// The filter's friction model, with the PCG solved to 1e-4: 75 mm after 0.25 s
// (Coulomb: 76 mm; 104 of 105 mm without friction). At the default tolerance,
// 1e-3, the PCG's early stop loses a quarter of the slide (54 mm; 91 of 105 mm
// without friction), but a tighter default made the funnel worse (RESULTS.md).
TEST(IClothRestingContacts, SheetOnASheetSlidesWithTheCoulombAccelerationWithTheFilterAlone) {
  const float mu = 0.1f, t = 0.25f, want = coulomb_slide(mu, t);
  for (const Context& ctx : test::backends())
    EXPECT_NEAR(sheet_on_sheet_slide(ctx, mu, t, {{"cg_tolerance", "1e-4"}, {"proximity_stiffness", "0"}}), want,
                0.1f * want);
}

// With the closing pairs as springs in the solve (proximity_stiffness 10, the
// default) and their friction a lagged drag in it, the small sheet slides as
// Coulomb says: 104 of 105 mm without friction, 74 of 76 mm with mu 0.1, and
// holds with mu 0.6 (0.55 mm in 1 s with the damped lag, 0.17 mm undamped).
// Before the springs were scaled along their direction and pushed along the
// surfaces' normal, they locked it (5 mm without friction);
// with friction from their impulse after the solve, the sheet crept by 26 mm
// where it should hold (RESULTS.md).
TEST(IClothRestingContacts, SheetOnASheetWithPairSpringsSlidesWithTheCoulombAcceleration) {
  const float t = 0.25f;
  const Params p{{"cg_tolerance", "1e-4"}, {"proximity_stiffness", "10"}};
  for (const Context& ctx : test::backends()) {
    for (float mu : {0.f, 0.1f}) {
      const float want = coulomb_slide(mu, t), got = sheet_on_sheet_slide(ctx, mu, t, p);
      std::printf("mu %.1f: slide %.1f mm in %.2f s (Coulomb %.1f mm)\n", mu, 1e3f * got, t, 1e3f * want);
      EXPECT_NEAR(got, want, 0.1f * want) << "mu " << mu;
    }
    const float held = sheet_on_sheet_slide(ctx, 0.6f, 1.f, p);
    std::printf("mu 0.6: slide %.2f mm in 1 s (holds)\n", 1e3f * held);
    EXPECT_LT(std::fabs(held), 3e-3f);
  }
}

TEST(IClothRestingContacts, SheetOnASlopeHoldsBelowTheFrictionAngle) {
  for (const Context& ctx : test::backends()) EXPECT_LT(std::fabs(slide_after(ctx, 0.6f, 1.f)), 2e-3f);
}

TEST(IClothRestingContacts, SheetOnASlopeSlidesWithTheCoulombAcceleration) {
  const float mu = 0.1f, t = 0.5f, want = coulomb_slide(mu, t);
  for (const Context& ctx : test::backends()) EXPECT_NEAR(slide_after(ctx, mu, t), want, 0.1f * want);
}

// A small sheet falls flat onto a large one lying on the ground. Its start
// height is chosen so that the step that lands it starts with the sheets a
// quarter thickness beyond the proximity distance D = 1.25 thicknesses, moving
// at 0.69 m/s: 1.7 thicknesses in the step (backward Euler in free fall falls
// g h^2 k (k + 1) / 2 in k steps). The pairs ahead (repulsion_ahead 0.5) become
// springs that let the gap close to D and no further: the solve stops the
// sheet (gap 1.21 thicknesses) and the CCD finds nothing. Without them the pairs
// are out of the proximity's reach at the step's start, and the step ends in
// 200 impacts that the impact zones push apart, the gap 0.16 thicknesses.
// Returns the gap after the landing step, in thicknesses.
float landing_gap(const Context& ctx, float ahead, double* impacts) {
  constexpr float h = 0.01f, g = 9.81f;
  constexpr int kFallSteps = 6;  // steps of free fall before the landing one
  SceneSpec s = test::grid_scene(12, 12, 0.3f, 0.3f, 0.f);
  const float th = s.cloths[0].material.thickness;
  for (Vec3f& p : s.cloths[0].mesh.positions) p.y = th;  // lying on the ground
  ClothSpec upper = test::grid_scene(6, 6, 0.1f, 0.1f, 0.f).cloths[0];
  upper.name = "upper";
  const float gap0 = 1.5f * th + g * h * h * kFallSteps * (kFallSteps + 1) / 2;
  for (Vec3f& p : upper.mesh.positions) p = Vec3f{p.x + 0.013f, th + gap0, p.z - 0.007f};
  s.cloths.push_back(upper);
  ObstacleSpec ground;  // y = 0
  ground.friction = 0.5f;
  s.obstacles.push_back(ground);
  s.dt = h;
  s.substeps = 1;
  auto wp = make_world(ctx, s);
  World& w = *wp;
  EXPECT_EQ(w.set_solver_param("repulsion_ahead", std::to_string(ahead)), "");
  const size_t nl = 12 * 12;
  auto gap = [&] {  // lowest point of the small sheet over the highest of the large one, m
    const std::vector<Vec3f> x = w.positions();
    float lo_top = -1e9f, up_bottom = 1e9f;
    for (size_t i = 0; i < nl; ++i) lo_top = std::max(lo_top, x[i].y);
    for (size_t i = nl; i < x.size(); ++i) up_bottom = std::min(up_bottom, x[i].y);
    return up_bottom - lo_top;
  };
  *impacts = 0;
  for (int f = 0; f <= kFallSteps; ++f) {
    w.step();
    std::printf("ahead %.1f step %d: gap %.2f thicknesses, impacts %.0f\n", ahead, f, gap() / th,
                w.stats().get("impacts"));
    *impacts += w.stats().get("impacts");
    EXPECT_EQ(w.stats().get("intersecting pairs", -1), 0) << "step " << f;
  }
  return gap() / th;
}

TEST(IClothRepulsion, PairsAheadStopALandingSheetInTheSolve) {
  for (const Context& ctx : test::backends()) {
    double impacts = 0;
    const float with = landing_gap(ctx, 0.5f, &impacts);
    EXPECT_EQ(impacts, 0) << "the solve stopped the sheet: nothing for the CCD";
    EXPECT_GT(with, 1.f) << "the landing step ends with the sheets a thickness apart";
    EXPECT_LT(with, 1.3f) << "at about the proximity distance, not held above it";
    EXPECT_LT(landing_gap(ctx, 0.f, &impacts), 1.f) << "without the pairs ahead the sheets end closer";
    EXPECT_GT(impacts, 0) << "without the pairs ahead the CCD meets the landing";
  }
}

// Near the friction angle (tan 20 = 0.364), on the CPU: at mu 0.3 the sheet
// slides 74.9 mm in 0.5 s where Coulomb says 73.7, and at mu 0.38 it holds
// (0.01 mm in 1 s). With the PCG at 1e-5 the slide over 1 s is within 0.6 mm of
// Coulomb's from mu 0.30 to 0.40 (at the default 1e-3 the solve accepts the warm
// start of a sheet whose net pull is a few % of gravity's: at mu 0.34 it slides
// on at constant speed, 26 of 110 mm). Before a resting contact's friction was
// decided within the step where it carried none (resting_contacts.h), a new
// contact slid freely for a step and a nearly stopped one carried too little:
// 318 mm at mu 0.3 where Coulomb says 295, a creep of 14 mm at mu 0.38 (RESULTS.md,
// sixteenth session).
TEST(IClothRestingContacts, SheetOnASlopeNearTheFrictionAngleFollowsCoulomb) {
  for (const Context& ctx : test::backends()) {
    const float want = coulomb_slide(0.3f, 0.5f);
    EXPECT_NEAR(slide_after(ctx, 0.3f, 0.5f), want, 0.05f * want);
    EXPECT_LT(std::fabs(slide_after(ctx, 0.38f, 1.f)), 1e-3f);
    for (float mu : {0.3f, 0.34f, 0.36f}) {
      const float tight = coulomb_slide(mu, 1.f);
      EXPECT_NEAR(slide_after(ctx, mu, 1.f, "1e-5"), tight, 0.03f * tight + 1e-3f) << "mu " << mu;
    }
    EXPECT_LT(std::fabs(slide_after(ctx, 0.38f, 1.f, "1e-5")), 1e-3f);
  }
}

// Runs `frames` frames of scene s with the I-Cloth solver, every one free of NaN
// and of intersecting pairs; returns the largest edge strain over them.
float largest_strain(const Context& ctx, const SceneSpec& s, int frames) {
  auto wp = make_world(ctx, s);
  World& w = *wp;
  float worst = 0;
  for (int f = 0; f < frames; ++f) {
    w.step();
    EXPECT_FALSE(w.stats().has_nan);
    EXPECT_EQ(w.stats().get("intersecting pairs", -1), 0) << "frame " << f;
    worst = std::max(worst, w.stats().max_strain);
  }
  return worst;
}

// A 0.36 m sheet of 24 x 24 vertices turned by `turn_deg` about the vertical,
// so that a corner points down the slope, dropped from `height` m onto a plane
// tilted by 30 degrees with friction mu (the sheet's own 0.5). Returns the
// largest edge strain over 30 frames (the landing front sweeps the sheet at
// frames ~15-20, at ~3 m/s: 2.5 cm a step against 1.6 cm edges).
float corner_landing_strain(const Context& ctx, float mu, float turn_deg, float height) {
  SceneSpec s = test::grid_scene(24, 24, 0.36f, 0.36f, 0.f);
  ClothSpec& c = s.cloths[0];
  c.material.stretch_stiffness = 2000.f;
  c.material.shear_stiffness = 200.f;
  c.material.thickness = 0.002f;
  c.material.friction = 0.5f;
  const Mat3f turn = rotation(Vec3f{0, 1, 0}, turn_deg * 3.14159265f / 180.f);
  for (Vec3f& p : c.mesh.positions) p = turn * p + Vec3f{0, height, 0};
  ObstacleSpec plane;
  plane.pose.R = rotation(Vec3f{0, 0, 1}, 30.f * 3.14159265f / 180.f);
  plane.friction = mu;
  s.obstacles.push_back(plane);
  s.dt = 1.f / 60;
  s.substeps = 2;
  return largest_strain(ctx, s, 30);
}

// Over 15 such landings (turned 35-55 degrees, dropped from 0.45-0.55 m): mean
// largest strain 0.16 on the CPU with mu 0.5, at most 0.2. Linearised once per
// step it was 0.31 (the landing stops the corner while the rest of the sheet
// falls on: no stretch to first order; solver.cpp, newton_iterations; tenth
// session); 0.32 before the resting contacts' friction moved into the solve,
// 0.38 with the re-solve after a slip capped at 30 iterations (RESULTS.md,
// ninth session).
TEST(IClothRestingContacts, SheetLandingCornerFirstOnASlopeKeepsItsEdges) {
  const Context ctx = test::backends()[0];
  float sum = 0;
  int runs = 0;
  for (float turn : {35.f, 40.f, 45.f, 50.f, 55.f})
    for (float height : {0.45f, 0.5f, 0.55f}) {
      const float worst = corner_landing_strain(ctx, 0.5f, turn, height);
      EXPECT_LT(worst, 0.3f) << "turned " << turn << " deg, from " << height << " m";
      sum += worst, ++runs;
    }
  std::printf("corner landing: largest strain mean %.3f over %d starts\n", sum / float(runs), runs);
  EXPECT_LT(sum / float(runs), 0.22f);
}

// A 0.2 m sheet of 24 x 24 vertices in the x-z plane at the origin (the skirt's
// cloth, no gravity) and the mesh obstacle `body` (friction 0.4) that starts
// rising at `speed` m/s (an oscillation of 5 cm); steps of 10 ms.
SceneSpec rising_body_scene(TriMesh body, float speed) {
  SceneSpec s = test::grid_scene(24, 24, 0.2f, 0.2f, 0.f);
  s.env.gravity = Vec3f{0, 0, 0};
  ClothSpec& c = s.cloths[0];
  c.material.density = 0.15f;
  c.material.stretch_stiffness = 20000.f;
  c.material.shear_stiffness = 2000.f;
  c.material.bend_stiffness = 2e-5f;
  c.material.thickness = 0.001f;
  c.material.friction = 0.4f;
  ObstacleSpec o;
  o.kind = ObstacleKind::Mesh;
  o.friction = 0.4f;
  o.mesh = std::move(body);
  o.motion.kind = MotionKind::Oscillate;
  o.motion.direction = Vec3f{0, 1, 0};
  o.motion.amplitude = 0.05f;
  o.motion.period = 2.f * 3.14159265f * o.motion.amplitude / speed;
  s.obstacles.push_back(o);
  s.dt = 0.01f;
  s.substeps = 1;
  return s;
}

// A 0.2 m sheet of 24 x 24 vertices (no gravity), tilted by `tilt_deg`, its
// centre 5 cm above a 1 m plate (a triangle mesh) that starts rising at `speed`
// m/s (an oscillation of 5 cm): at 2 m/s the plate moves 2 cm a step of 10 ms
// against 8.7 mm edges, and in one step it sweeps past some of the sheet's
// vertices while it ends just short of others (a thigh rising into a skirt,
// RESULTS.md, twelfth session). Returns the largest edge strain over 30 frames.
float plate_push_strain(const Context& ctx, float tilt_deg, float speed) {
  TriMesh plate;
  plate.source = "test plate";
  plate.positions = {{-0.5f, 0, -0.5f}, {0.5f, 0, -0.5f}, {0.5f, 0, 0.5f}, {-0.5f, 0, 0.5f}};
  plate.tris = {Int3{0, 2, 1}, Int3{0, 3, 2}};
  SceneSpec s = rising_body_scene(plate, speed);
  const Mat3f tilt = rotation(Vec3f{1, 0, 0}, tilt_deg * 3.14159265f / 180.f);
  for (Vec3f& p : s.cloths[0].mesh.positions) p = tilt * p + Vec3f{0, 0.05f, 0};
  return largest_strain(ctx, s, 30);
}

// The plate pushes the sheet ahead of it without stretching it: largest strain
// 0.05-0.15 over these starts on the CPU (0.03-0.13 before the overtaken
// vertices got contacts in the solve, fourteenth session). Before, 0.30-1.14:
// a vertex the plate swept past in a step got a normal pointing into the plate
// (the side of its end-of-step plane) and was pushed inside it, for the CCD's
// impact zones to move alone; and a vertex within reach of the end-of-step plate was drawn at the
// plate's full speed and ended the step 2 cm ahead of it (1.58 with the normal
// fixed alone). Resting contacts looked for as far as the plate moved in the
// step (not kept then) made it 0.86; they are now found, with a spring 1/30 as
// stiff (kOvertakenStiffness, resting_contacts.cu).
TEST(IClothRestingContacts, RisingPlatePushesATiltedSheetWithoutStretchingIt) {
  const Context ctx = test::backends()[0];
  for (float tilt : {10.f, 20.f})
    for (float speed : {1.f, 2.f}) {
      const float worst = plate_push_strain(ctx, tilt, speed);
      EXPECT_LT(worst, 0.3f) << "tilted " << tilt << " deg, plate at " << speed << " m/s";
      std::printf("plate at %.0f m/s into a sheet tilted %.0f deg: largest strain %.3f\n", speed, tilt, worst);
    }
}

// A 0.2 m sheet of 24 x 24 vertices (no gravity) 3 cm above a horizontal tube of
// radius 3 cm (a triangle mesh of `around` facets, a thigh) that starts rising
// at `speed` m/s (an oscillation of 5 cm): at 2 m/s the tube moves 2 cm a step
// against 8.7 mm edges and sweeps past a band of the sheet's vertices each step
// while it wraps the sheet around itself. The sheet is moved `offset` m along
// the tube's axis. Returns the largest edge strain over 30 frames; every frame
// must end without an intersecting pair.
float tube_push_strain(const Context& ctx, float speed, int around, float offset) {
  TriMesh tube = band(around, 8, 0.03f, 0.3f, -0.15f);
  tube.source = "test tube";
  const Mat3f lie = rotation(Vec3f{0, 0, 1}, 1.5707963f);  // its axis along x, its top at y = 0
  for (Vec3f& p : tube.positions) p = lie * p + Vec3f{0, -0.03f, 0};
  SceneSpec s = rising_body_scene(tube, speed);
  for (Vec3f& p : s.cloths[0].mesh.positions) p = p + Vec3f{offset, 0.03f, 0};
  return largest_strain(ctx, s, 30);
}

// The tube draws the sheet around itself without stretching it and without a
// crossing: largest strain 0.08-0.17 over these 8 starts on the CPU. While the
// contacts reached only the vertices within reach of the end-of-step surface,
// the overtaken ones were left to the filter and the impact zones: 0.14-0.39,
// and one start (2 m/s, 12 facets, moved 4 mm) crossed the tube for 15 frames
// at strain 5.6. Overtaken contacts drawn no faster than the surface's normal
// speed (its flanks move along themselves): 2.6-2.9 on the 24-facet tube at
// 2 m/s (RESULTS.md, fourteenth session).
TEST(IClothRestingContacts, RisingTubeWrapsASheetWithoutCrossingIt) {
  const Context ctx = test::backends()[0];
  for (float speed : {1.f, 2.f})
    for (int around : {12, 24})
      for (float offset : {0.f, 0.004f}) {
        const float worst = tube_push_strain(ctx, speed, around, offset);
        EXPECT_LT(worst, 0.3f) << "tube at " << speed << " m/s, " << around << " facets, sheet moved " << offset;
        std::printf("tube at %.0f m/s, %d facets, sheet moved %.0f mm: largest strain %.3f\n", speed, around,
                    offset * 1e3f, worst);
      }
}

}  // namespace
}  // namespace cb::icloth
