#pragma once
/// Closed triangle surfaces written as ASCII STL, PLY and OBJ, for the geometry tests: a box,
/// a UV sphere and a capped cylinder (outward-facing triangles).

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace sluice::test {

struct Surface {
    std::vector<Eigen::Vector3d> vertices;
    std::vector<std::array<int, 3>> triangles;
};

inline Surface box_surface(const Eigen::Vector3d& lo, const Eigen::Vector3d& hi) {
    Surface s;
    for (int k = 0; k < 8; ++k)
        s.vertices.emplace_back(k & 1 ? hi.x() : lo.x(), k & 2 ? hi.y() : lo.y(),
                                k & 4 ? hi.z() : lo.z());
    // Two triangles per face, each face's diagonal from its first to its third corner.
    const int quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                             {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (const auto& q : quads) {
        s.triangles.push_back({q[0], q[1], q[2]});
        s.triangles.push_back({q[0], q[2], q[3]});
    }
    return s;
}

/// `slices` around the z axis, `stacks` from pole to pole.
inline Surface sphere_surface(const Eigen::Vector3d& c, double r, int slices, int stacks) {
    const double pi = 3.14159265358979323846;
    Surface s;
    s.vertices.push_back(c + Eigen::Vector3d(0, 0, -r));
    for (int i = 1; i < stacks; ++i) {
        const double theta = pi * i / stacks - pi / 2;
        for (int j = 0; j < slices; ++j) {
            const double phi = 2 * pi * j / slices;
            s.vertices.push_back(c + r * Eigen::Vector3d(std::cos(theta) * std::cos(phi),
                                                         std::cos(theta) * std::sin(phi),
                                                         std::sin(theta)));
        }
    }
    s.vertices.push_back(c + Eigen::Vector3d(0, 0, r));
    const int top = static_cast<int>(s.vertices.size()) - 1;
    auto ring = [&](int i, int j) { return 1 + (i - 1) * slices + (j % slices); };
    for (int j = 0; j < slices; ++j)
        s.triangles.push_back({0, ring(1, j + 1), ring(1, j)});
    for (int i = 1; i < stacks - 1; ++i)
        for (int j = 0; j < slices; ++j) {
            s.triangles.push_back({ring(i, j), ring(i, j + 1), ring(i + 1, j + 1)});
            s.triangles.push_back({ring(i, j), ring(i + 1, j + 1), ring(i + 1, j)});
        }
    for (int j = 0; j < slices; ++j)
        s.triangles.push_back({top, ring(stacks - 1, j), ring(stacks - 1, j + 1)});
    return s;
}

/// A cylinder along z from z0 to z1 about (cx, cy), capped at both ends.
inline Surface cylinder_surface(double cx, double cy, double r, double z0, double z1, int slices) {
    const double pi = 3.14159265358979323846;
    Surface s;
    s.vertices.emplace_back(cx, cy, z0);
    s.vertices.emplace_back(cx, cy, z1);
    for (int j = 0; j < slices; ++j) {
        const double phi = 2 * pi * j / slices;
        s.vertices.emplace_back(cx + r * std::cos(phi), cy + r * std::sin(phi), z0);
        s.vertices.emplace_back(cx + r * std::cos(phi), cy + r * std::sin(phi), z1);
    }
    auto lo = [&](int j) { return 2 + 2 * (j % slices); };
    auto hi = [&](int j) { return 3 + 2 * (j % slices); };
    for (int j = 0; j < slices; ++j) {
        s.triangles.push_back({0, lo(j + 1), lo(j)});
        s.triangles.push_back({1, hi(j), hi(j + 1)});
        s.triangles.push_back({lo(j), lo(j + 1), hi(j + 1)});
        s.triangles.push_back({lo(j), hi(j + 1), hi(j)});
    }
    return s;
}

inline void write_stl(const std::filesystem::path& path, const Surface& s) {
    std::ofstream out(path);
    out.precision(17);
    out << "solid test\n";
    for (const auto& t : s.triangles) {
        const Eigen::Vector3d n =
            (s.vertices[t[1]] - s.vertices[t[0]]).cross(s.vertices[t[2]] - s.vertices[t[0]]);
        out << "facet normal " << n.x() << ' ' << n.y() << ' ' << n.z() << "\n outer loop\n";
        for (const int v : t)
            out << "  vertex " << s.vertices[v].x() << ' ' << s.vertices[v].y() << ' '
                << s.vertices[v].z() << "\n";
        out << " endloop\nendfacet\n";
    }
    out << "endsolid test\n";
}

inline void write_ply(const std::filesystem::path& path, const Surface& s) {
    std::ofstream out(path);
    out.precision(17);
    out << "ply\nformat ascii 1.0\nelement vertex " << s.vertices.size()
        << "\nproperty double x\nproperty double y\nproperty double z\nelement face "
        << s.triangles.size() << "\nproperty list uchar int vertex_indices\nend_header\n";
    for (const auto& v : s.vertices)
        out << v.x() << ' ' << v.y() << ' ' << v.z() << "\n";
    for (const auto& t : s.triangles)
        out << "3 " << t[0] << ' ' << t[1] << ' ' << t[2] << "\n";
}

inline void write_obj(const std::filesystem::path& path, const Surface& s) {
    std::ofstream out(path);
    out.precision(17);
    for (const auto& v : s.vertices)
        out << "v " << v.x() << ' ' << v.y() << ' ' << v.z() << "\n";
    for (const auto& t : s.triangles)
        out << "f " << t[0] + 1 << ' ' << t[1] + 1 << ' ' << t[2] + 1 << "\n";
}

} // namespace sluice::test
