#include "case/case_override.h"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace sluice {

namespace {

int axis_count(const Case& c) {
    return c.dimension;
}

/// Axis k of a case's points: x, z in 2D; x, y, z in 3D.
int axis(const Case& c, int k) {
    return c.dimension == 2 ? (k == 0 ? 0 : 2) : k;
}

void require_thick(const Case& c, const Box& b, double dp, const std::string& what) {
    for (int k = 0; k < axis_count(c); ++k) {
        const int a = axis(c, k);
        const double extent = b.max[a] - b.min[a];
        if (extent < dp * (1.0 - 1e-6)) {
            std::ostringstream msg;
            msg << "--dp " << dp << " m: the " << what << " is " << extent << " m thick along "
                << "xyz"[a] << ", thinner than dp, so it would hold no particle";
            throw std::invalid_argument(msg.str());
        }
    }
}

} // namespace

void apply_dp_override(Case& c, double dp) {
    if (!(dp > 0.0) || !std::isfinite(dp)) {
        std::ostringstream msg;
        msg << "--dp expects a positive particle spacing in m, got " << dp;
        throw std::invalid_argument(msg.str());
    }
    for (const FluidRegion& f : c.fluids)
        require_thick(c, f.box, dp, "<fluid> box at line " + std::to_string(f.where.line));
    for (const Obstacle& o : c.obstacles)
        require_thick(c, o.box, dp, "<obstacle> at line " + std::to_string(o.where.line));
    if (c.tank) {
        require_thick(c, c.tank->box, dp, "<tank>");
        // The walls grow outwards by layers·dp; the domain must still hold them (the reader's
        // tolerance, dp·1e-6).
        const unsigned lo_faces[3] = {face_left, face_front, face_bottom};
        const unsigned hi_faces[3] = {face_right, face_back, face_top};
        const double wall = c.tank->layers * dp, tol = 1e-6 * dp;
        for (int k = 0; k < axis_count(c); ++k) {
            const int a = axis(c, k);
            const bool low = (c.tank->faces & lo_faces[a]) != 0;
            const bool high = (c.tank->faces & hi_faces[a]) != 0;
            if ((low && c.tank->box.min[a] - wall < c.domain.min[a] - tol) ||
                (high && c.tank->box.max[a] + wall > c.domain.max[a] + tol)) {
                std::ostringstream msg;
                msg << "--dp " << dp << " m: the tank's " << c.tank->layers << " wall layers ("
                    << wall << " m) reach outside the domain along "
                    << "xyz"[a] << "; give a <domain> with more room or a smaller dp";
                throw std::invalid_argument(msg.str());
            }
        }
    }
    c.dp = dp;
}

} // namespace sluice
