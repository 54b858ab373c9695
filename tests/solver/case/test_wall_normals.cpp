// mDBC wall normals and ghost nodes from the case geometry (case/wall_normals.h): exact normals
// and ghosts at tank faces, edges and corners and inside obstacles of every shape, the rule for
// an obstacle standing on the floor, and every boundary particle of every shipped case.

#include "case/case_reader.h"
#include "case/particles.h"
#include "case/wall_normals.h"
#include "support/cases.h"
#include "support/meshes.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace sluice {
namespace {

using Eigen::Vector3d;

/// A case with no tank and no obstacle yet (a fluid box so particles can be generated).
Case empty_case(int dimension, double dp) {
    Case c;
    c.name = "normals";
    c.dimension = dimension;
    c.dp = dp;
    FluidRegion water;
    water.box.max = Vector3d(0.1, dimension == 3 ? 0.1 : 0.0, 0.1);
    c.constants.speed_of_sound = 10.0;
    c.fluids.push_back(water);
    return c;
}

Obstacle obstacle(const Vector3d& lo, const Vector3d& hi, Shape shape = BoxShape{}) {
    Obstacle o;
    o.box.min = lo;
    o.box.max = hi;
    o.shape = std::move(shape);
    return o;
}

/// The ghost of one position.
WallGhost ghost_at(const Case& c, const Vector3d& p) {
    return wall_ghosts(c, {p}).front();
}

void expect_ghost(const Case& c, const Vector3d& p, const Vector3d& normal, const Vector3d& ghost) {
    const WallGhost g = ghost_at(c, p);
    ASSERT_TRUE(g.found) << "at " << p.transpose();
    EXPECT_LT((g.normal - normal.normalized()).norm(), 1e-12)
        << "at " << p.transpose() << ": normal " << g.normal.transpose();
    EXPECT_LT((g.ghost - ghost).norm(), 1e-12)
        << "at " << p.transpose() << ": ghost " << g.ghost.transpose();
}

/// Whether q lies in no solid of the case: in no obstacle's shape, and inside the tank's
/// interior box on every axis with a wall (written independently of wall_normals.cpp).
bool in_the_open(const Case& c, const Vector3d& q) {
    for (const Obstacle& o : c.obstacles)
        if (shape_contains(o.shape, o.box.min, o.box.max, q, c.dimension))
            return false;
    if (!c.tank)
        return true;
    const unsigned bits[3][2] = {
        {face_left, face_right}, {face_front, face_back}, {face_bottom, face_top}};
    for (int k = 0; k < 3; ++k) {
        if (c.dimension == 2 && k == 1)
            continue;
        if ((q[k] < c.tank->box.min[k] && (c.tank->faces & bits[k][0])) ||
            (q[k] > c.tank->box.max[k] && (c.tank->faces & bits[k][1])))
            return false;
    }
    return true;
}

/// Every boundary particle of `s` has a ghost in the open, its normal the unit vector from the
/// particle to the ghost, the ghost 2|s − p| from the particle with s = (p + ghost)/2 the wall
/// point; in 2D everything stays in y = 0. Returns the ghosts.
std::vector<WallGhost> expect_all_found(const Case& c, const ParticleSet& s) {
    const std::vector<Vector3d> boundary(s.position.begin(),
                                         s.position.begin() + static_cast<long>(s.boundary_count));
    const std::vector<WallGhost> ghosts = wall_ghosts(c, boundary);
    EXPECT_EQ(ghosts.size(), boundary.size());
    int failures = 0;
    for (std::size_t i = 0; i < ghosts.size() && failures < 5; ++i) {
        const WallGhost& g = ghosts[i];
        const Vector3d& p = boundary[i];
        const Vector3d wall = 0.5 * (p + g.ghost);
        const bool ok = g.found && std::abs(g.normal.norm() - 1.0) < 1e-12 &&
                        (g.ghost - p).norm() > 1e-9 * c.dp &&
                        (g.normal - (g.ghost - p).normalized()).norm() < 1e-9 &&
                        std::abs((g.ghost - p).norm() - 2.0 * (wall - p).norm()) < 1e-12 &&
                        in_the_open(c, g.ghost) &&
                        (c.dimension == 3 || (g.ghost.y() == 0.0 && g.normal.y() == 0.0));
        if (!ok) {
            ++failures;
            ADD_FAILURE() << c.name << ": particle " << i << " at " << p.transpose() << ": found "
                          << g.found << ", ghost " << g.ghost.transpose() << ", normal "
                          << g.normal.transpose();
        }
    }
    return ghosts;
}

// --- tank walls ---------------------------------------------------------------------------------

TEST(WallNormals, TankFacesEdgesAndCornersIn2D) {
    const Case c = test::tank_case_2d(0.1, 1.0, 1.0, test::box(0.0, 0.0, 0.5, 0.5));
    // Faces: mirrored through the face along its normal.
    expect_ghost(c, {0.35, 0, -0.05}, {0, 0, 1}, {0.35, 0, 0.05});
    expect_ghost(c, {0.35, 0, -0.25}, {0, 0, 1}, {0.35, 0, 0.25});
    expect_ghost(c, {-0.15, 0, 0.45}, {1, 0, 0}, {0.15, 0, 0.45});
    expect_ghost(c, {1.05, 0, 0.95}, {-1, 0, 0}, {0.95, 0, 0.95});
    // Corners: mirrored through the corner point.
    expect_ghost(c, {-0.05, 0, -0.15}, {0.05, 0, 0.15}, {0.05, 0, 0.15});
    expect_ghost(c, {-0.25, 0, -0.25}, {1, 0, 1}, {0.25, 0, 0.25});
    expect_ghost(c, {1.15, 0, -0.05}, {-0.15, 0, 0.05}, {0.85, 0, 0.05});
    expect_all_found(c, generate_particles(c));
}

TEST(WallNormals, TankFacesEdgesAndCornersIn3D) {
    const Case c =
        test::tank_case_3d(0.1, {1.0, 0.6, 0.8}, {0.3, 0.3, 0.3}, {-1, -1, -1}, {2, 2, 2});
    expect_ghost(c, {0.45, 0.25, -0.15}, {0, 0, 1}, {0.45, 0.25, 0.15});  // floor
    expect_ghost(c, {0.45, 0.65, 0.35}, {0, -1, 0}, {0.45, 0.55, 0.35});  // back
    expect_ghost(c, {0.45, -0.05, -0.05}, {0, 1, 1}, {0.45, 0.05, 0.05}); // front–floor edge
    expect_ghost(c, {1.25, 0.35, -0.05}, {-0.25, 0, 0.05}, {0.75, 0.35, 0.05});     // right–floor
    expect_ghost(c, {-0.05, -0.15, -0.25}, {0.05, 0.15, 0.25}, {0.05, 0.15, 0.25}); // corner
    expect_ghost(c, {1.05, 0.65, -0.05}, {-1, -1, 1}, {0.95, 0.55, 0.05});          // corner
    expect_all_found(c, generate_particles(c));
}

// --- obstacles ----------------------------------------------------------------------------------

TEST(WallNormals, BoxObstacleMirrorsThroughItsNearestFace) {
    Case c = empty_case(3, 0.1);
    c.obstacles.push_back(obstacle({0.2, 0.2, 0.2}, {0.8, 0.8, 0.8}));
    expect_ghost(c, {0.25, 0.45, 0.55}, {-1, 0, 0}, {0.15, 0.45, 0.55});
    expect_ghost(c, {0.45, 0.35, 0.75}, {0, 0, 1}, {0.45, 0.35, 0.85});
    expect_ghost(c, {0.45, 0.65, 0.55}, {0, 1, 0}, {0.45, 0.95, 0.55});
    // Equally far (to the bit) from the x, y and z low faces: the first listed (x) wins, always.
    expect_ghost(c, {0.5, 0.5, 0.5}, {-1, 0, 0}, {-0.1, 0.5, 0.5});
    expect_all_found(c, generate_particles(c));
}

TEST(WallNormals, ObstacleOnTheFloorNeverMirrorsThroughItsBottomFace) {
    Case c = test::tank_case_3d(0.1, {1.0, 1.0, 1.0}, {0.2, 0.2, 0.2}, {-1, -1, -1}, {2, 2, 2});
    c.obstacles.push_back(obstacle({0.3, 0.3, 0.0}, {0.7, 0.7, 0.4}));
    // Nearest the bottom face (0.05 below) but mirrored through the next nearest, x = 0.3.
    expect_ghost(c, {0.45, 0.5, 0.05}, {-1, 0, 0}, {0.15, 0.5, 0.05});
    // Nearest the top face: mirrored through it.
    expect_ghost(c, {0.45, 0.5, 0.35}, {0, 0, 1}, {0.45, 0.5, 0.45});
    // A floor particle beside the obstacle: through the floor.
    expect_ghost(c, {0.25, 0.5, -0.05}, {0, 0, 1}, {0.25, 0.5, 0.05});
    // A floor particle under the obstacle's edge: its floor ghost would be inside the obstacle,
    // so it mirrors through the corner line of floor and obstacle, x = 0.3, z = 0.
    expect_ghost(c, {0.35, 0.5, -0.05}, {-1, 0, 1}, {0.25, 0.5, 0.05});
    const ParticleSet s = generate_particles(c);
    const std::vector<WallGhost> ghosts = expect_all_found(c, s);
    std::size_t inside = 0;
    for (std::size_t i = 0; i < ghosts.size(); ++i) {
        if (!shape_contains(c.obstacles[0].shape, c.obstacles[0].box.min, c.obstacles[0].box.max,
                            s.position[i], 3))
            continue;
        ++inside;
        EXPECT_GT(ghosts[i].normal.z(), -0.5)
            << "bottom face chosen at " << s.position[i].transpose();
    }
    EXPECT_EQ(inside, 4u * 4u * 4u);
}

TEST(WallNormals, CylinderSideAndEndDiscsIn3D) {
    Case c = empty_case(3, 0.05);
    Cylinder cyl;
    cyl.start = {0.5, 0.5, 0.2};
    cyl.end = {0.5, 0.5, 0.8};
    cyl.radius = 0.2;
    c.obstacles.push_back(obstacle({0.3, 0.3, 0.2}, {0.7, 0.7, 0.8}, cyl));
    expect_ghost(c, {0.55, 0.5, 0.5}, {1, 0, 0}, {0.85, 0.5, 0.5});    // side
    expect_ghost(c, {0.5, 0.4, 0.45}, {0, -1, 0}, {0.5, 0.2, 0.45});   // side
    expect_ghost(c, {0.53, 0.5, 0.75}, {0, 0, 1}, {0.53, 0.5, 0.85});  // top disc
    expect_ghost(c, {0.5, 0.47, 0.22}, {0, 0, -1}, {0.5, 0.47, 0.18}); // bottom disc
    expect_all_found(c, generate_particles(c));
}

TEST(WallNormals, CircleAndDiscIn2D) {
    Case c = empty_case(2, 0.02);
    Cylinder circle;
    circle.start = circle.end = {0.5, 0.0, 0.5};
    circle.radius = 0.2;
    c.obstacles.push_back(obstacle({0.3, 0, 0.3}, {0.7, 0, 0.7}, circle));
    Sphere disc;
    disc.center = {1.5, 0.0, 0.5};
    disc.radius = 0.1;
    c.obstacles.push_back(obstacle({1.4, 0, 0.4}, {1.6, 0, 0.6}, disc));
    expect_ghost(c, {0.5, 0, 0.4}, {0, 0, -1}, {0.5, 0, 0.2});
    expect_ghost(c, {0.62, 0, 0.5}, {1, 0, 0}, {0.78, 0, 0.5});
    expect_ghost(c, {1.5, 0, 0.57}, {0, 0, 1}, {1.5, 0, 0.63});
    expect_all_found(c, generate_particles(c));
}

TEST(WallNormals, SphereMirrorsRadially) {
    Case c = empty_case(3, 0.05);
    Sphere ball;
    ball.center = {0.5, 0.5, 0.5};
    ball.radius = 0.3;
    c.obstacles.push_back(obstacle({0.2, 0.2, 0.2}, {0.8, 0.8, 0.8}, ball));
    expect_ghost(c, {0.5, 0.6, 0.5}, {0, 1, 0}, {0.5, 1.0, 0.5});
    const Vector3d p(0.6, 0.6, 0.6), u = Vector3d(1, 1, 1).normalized();
    const Vector3d s = ball.center + 0.3 * u;
    expect_ghost(c, p, u, 2.0 * s - p);
    expect_all_found(c, generate_particles(c));
}

/// A surface obstacle from test::Surface (as the reader would place it).
Obstacle mesh_obstacle(const test::Surface& surface, int dimension) {
    std::vector<std::array<std::size_t, 3>> triangles;
    for (const auto& t : surface.triangles)
        triangles.push_back({static_cast<std::size_t>(t[0]), static_cast<std::size_t>(t[1]),
                             static_cast<std::size_t>(t[2])});
    auto mesh = std::make_shared<const TriangleMesh>(surface.vertices, triangles);
    Obstacle o;
    o.box.min = mesh->min();
    o.box.max = mesh->max();
    if (dimension == 2)
        o.box.min.y() = o.box.max.y() = 0.0;
    o.shape = SurfaceMesh{"mesh", mesh};
    return o;
}

TEST(WallNormals, SurfaceMeshBoxGivesTheBoxsGhosts) {
    Case c = empty_case(3, 0.1);
    c.obstacles.push_back(mesh_obstacle(test::box_surface({0.2, 0.2, 0.2}, {0.8, 0.8, 0.8}), 3));
    expect_ghost(c, {0.25, 0.45, 0.55}, {-1, 0, 0}, {0.15, 0.45, 0.55});
    expect_ghost(c, {0.45, 0.35, 0.75}, {0, 0, 1}, {0.45, 0.35, 0.85});
    // Every particle mirrors as far as through the same box given as a box (ties between
    // equidistant faces may pick another face).
    Case as_box = c;
    as_box.obstacles = {obstacle({0.2, 0.2, 0.2}, {0.8, 0.8, 0.8})};
    const ParticleSet s = generate_particles(c);
    const std::vector<WallGhost> mesh_ghosts = expect_all_found(c, s);
    const std::vector<Vector3d> boundary(s.position.begin(),
                                         s.position.begin() + static_cast<long>(s.boundary_count));
    const std::vector<WallGhost> box_ghosts = wall_ghosts(as_box, boundary);
    ASSERT_EQ(s.boundary_count, 216u);
    for (std::size_t i = 0; i < boundary.size(); ++i)
        EXPECT_NEAR((mesh_ghosts[i].ghost - boundary[i]).norm(),
                    (box_ghosts[i].ghost - boundary[i]).norm(), 1e-12);
}

TEST(WallNormals, SurfaceMeshIn2DUsesItsSectionByThePlane) {
    // A box extruded across y = 0: its section is the square [0.2, 0.8]² in x–z.
    Case c = empty_case(2, 0.05);
    c.obstacles.push_back(mesh_obstacle(test::box_surface({0.2, -0.3, 0.2}, {0.8, 0.4, 0.8}), 2));
    expect_ghost(c, {0.25, 0, 0.45}, {-1, 0, 0}, {0.15, 0, 0.45});
    expect_ghost(c, {0.475, 0, 0.725}, {0, 0, 1}, {0.475, 0, 0.875});
    expect_all_found(c, generate_particles(c));
}

TEST(WallNormals, ShippedRampMeshOnTheFloor) {
    const Case c = read_case(std::string(SLUICE_CASES_DIR) + "/dambreak_ramp3d.xml");
    const ParticleSet s = generate_particles(c);
    const std::vector<WallGhost> ghosts = expect_all_found(c, s);
    // The ramp's particles (after the tank's) never mirror below the floor.
    std::size_t ramp = 0;
    for (std::size_t i = 0; i < s.boundary_count; ++i) {
        const Obstacle& o = c.obstacles[0];
        if (!shape_contains(o.shape, o.box.min, o.box.max, s.position[i], 3))
            continue;
        ++ramp;
        EXPECT_GT(ghosts[i].ghost.z(), 0.0) << "at " << s.position[i].transpose();
    }
    EXPECT_GT(ramp, 100u);
}

// --- rules at the edges of the contract ---------------------------------------------------------

TEST(WallNormals, NoGhostOnASurfaceOrOutsideEverySolid) {
    Case c = test::tank_case_2d(0.1, 1.0, 1.0, test::box(0.0, 0.0, 0.5, 0.5));
    c.obstacles.push_back(obstacle({0.6, 0, 0.2}, {0.8, 0, 0.4}));
    const WallGhost in_fluid = ghost_at(c, {0.5, 0, 0.5});
    EXPECT_FALSE(in_fluid.found);
    EXPECT_EQ(in_fluid.normal, Vector3d::Zero());
    EXPECT_EQ(in_fluid.ghost, Vector3d::Zero());
    EXPECT_FALSE(ghost_at(c, {0.5, 0, 0.0}).found); // on the floor: inside the tank's box
    EXPECT_FALSE(ghost_at(c, {0.6, 0, 0.3}).found); // on the obstacle's face
    EXPECT_FALSE(ghost_at(c, {0.7, 0, 0.4}).found); // on the obstacle's top
    EXPECT_TRUE(ghost_at(c, {0.7, 0, 0.35}).found); // just under it
    EXPECT_TRUE(ghost_at(c, {-0.1, 0, 0.0}).found); // beside the floor's corner
}

TEST(WallNormals, TheSameAnswerForTheSamePositions) {
    const Case c = test::tank_case_2d(0.1, 1.0, 1.0, test::box(0.0, 0.0, 0.5, 0.5));
    const ParticleSet s = generate_particles(c);
    const std::vector<Vector3d> boundary(s.position.begin(),
                                         s.position.begin() + static_cast<long>(s.boundary_count));
    const auto a = wall_ghosts(c, boundary), b = wall_ghosts(c, boundary);
    for (std::size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(a[i].ghost, b[i].ghost);
}

TEST(WallNormals, SurfaceNormalForSensors) {
    Case c = test::tank_case_3d(0.1, {1.0, 1.0, 1.0}, {0.2, 0.2, 0.2}, {-1, -1, -1}, {2, 2, 2});
    c.obstacles.push_back(obstacle({0.3, 0.3, 0.0}, {0.7, 0.7, 0.4}));
    auto normal = [&](const Vector3d& p) { return wall_surface_normal(c, p); };
    EXPECT_EQ(normal({0.2, 0.5, 0.0}), Vector3d(0, 0, 1));  // floor
    EXPECT_EQ(normal({0.27, 0.5, 0.0}), Vector3d(0, 0, 1)); // floor by the obstacle's foot
    EXPECT_EQ(normal({0.3, 0.5, 0.2}), Vector3d(-1, 0, 0)); // obstacle's left face
    EXPECT_EQ(normal({0.5, 0.5, 0.43}), Vector3d(0, 0, 1)); // above its top, within dp
    EXPECT_EQ(normal({0.0, 0.5, 0.6}), Vector3d(1, 0, 0));  // tank's left wall
    EXPECT_EQ(normal({0.5, 1.0, 0.6}), Vector3d(0, -1, 0)); // tank's back wall
    EXPECT_FALSE(normal({0.15, 0.5, 0.6}).has_value());     // open water
    EXPECT_FALSE(normal({0.5, 0.5, 1.0}).has_value());      // the open top is no wall
    Case round = empty_case(3, 0.05);
    Sphere ball;
    ball.center = {0.5, 0.5, 0.5};
    ball.radius = 0.3;
    round.obstacles.push_back(obstacle({0.2, 0.2, 0.2}, {0.8, 0.8, 0.8}, ball));
    const auto n = wall_surface_normal(round, {0.5, 0.82, 0.5});
    ASSERT_TRUE(n.has_value());
    EXPECT_LT((*n - Vector3d(0, 1, 0)).norm(), 1e-12);
}

/// Whether s lies on a chosen face of the tank's inside box or on a face of a box obstacle
/// (within 1e-12 m).
bool on_a_box_surface(const Case& c, const Vector3d& s) {
    auto on_box = [&](const Box& b, unsigned faces) {
        const unsigned bits[3][2] = {
            {face_left, face_right}, {face_front, face_back}, {face_bottom, face_top}};
        bool on_face = false;
        for (int k = 0; k < 3; ++k) {
            if (c.dimension == 2 && k == 1)
                continue;
            if (s[k] < b.min[k] - 1e-12 || s[k] > b.max[k] + 1e-12)
                return false;
            on_face = on_face || (std::abs(s[k] - b.min[k]) < 1e-12 && (faces & bits[k][0])) ||
                      (std::abs(s[k] - b.max[k]) < 1e-12 && (faces & bits[k][1]));
        }
        return on_face;
    };
    if (c.tank && on_box(c.tank->box, c.tank->faces))
        return true;
    for (const Obstacle& o : c.obstacles)
        if (std::holds_alternative<BoxShape>(o.shape) && on_box(o.box, ~0u))
            return true;
    return false;
}

// --- shipped cases ------------------------------------------------------------------------------

TEST(WallNormals, EveryBoundaryParticleOfEveryShippedCaseHasAGhost) {
    for (const auto& entry : std::filesystem::directory_iterator(SLUICE_CASES_DIR)) {
        if (entry.path().extension() != ".xml")
            continue;
        SCOPED_TRACE(entry.path().filename().string());
        const Case c = read_case(entry.path().string());
        const ParticleSet s = generate_particles(c);
        const std::vector<Vector3d> boundary(
            s.position.begin(), s.position.begin() + static_cast<long>(s.boundary_count));
        const auto start = std::chrono::steady_clock::now();
        wall_ghosts(c, boundary);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("  %s: %zu boundary particles, wall_ghosts %.3f s\n",
                    entry.path().filename().string().c_str(), boundary.size(), seconds);
        const std::vector<WallGhost> ghosts = expect_all_found(c, s);
        bool boxes_only = true;
        for (const Obstacle& o : c.obstacles)
            boxes_only = boxes_only && std::holds_alternative<BoxShape>(o.shape);
        if (!boxes_only)
            continue;
        std::size_t off_surface = 0;
        for (std::size_t i = 0; i < ghosts.size(); ++i)
            if (!on_a_box_surface(c, 0.5 * (boundary[i] + ghosts[i].ghost)) && ++off_surface <= 5)
                ADD_FAILURE() << "wall point of " << boundary[i].transpose() << " on no surface";
        EXPECT_EQ(off_surface, 0u);
    }
}

} // namespace
} // namespace sluice
