"""The gradient of a simulation with a data-dependent `while` loop.

    python examples/projectile.py

A projectile is launched at `angle` (radians) with speed `speed`, under gravity and
linear air drag, and stepped with explicit Euler until it falls below the ground. The
number of steps depends on the angle, so the simulation is a `while` loop; srcgrad
records the trip count and reverses it. The range's derivative with respect to the
angle is checked against central finite differences, then used to find the angle of
longest range by gradient ascent (with drag it is below 45 degrees).
"""

import math

import srcgrad

GRAVITY = 9.81
DRAG = 0.1  # per second
DT = 1e-3  # seconds


def flight_range(angle, speed):
    """Horizontal distance travelled before landing (ground crossing interpolated)."""
    x = 0.0
    y = 0.0
    vx = speed * math.cos(angle)
    vy = speed * math.sin(angle)
    prev_x = x
    prev_y = y
    while y >= 0.0:
        prev_x = x
        prev_y = y
        x = x + DT * vx
        y = y + DT * vy
        vx = vx - DT * DRAG * vx
        vy = vy - DT * (GRAVITY + DRAG * vy)
    # the landing point lies between the last two positions, where y crosses 0
    return prev_x + (x - prev_x) * prev_y / (prev_y - y)


drange = srcgrad.value_and_grad(flight_range, wrt="angle")
print(srcgrad.source(drange))

angle, speed = 0.6, 30.0
distance, slope = drange(angle, speed)
eps = 1e-6
numeric = (flight_range(angle + eps, speed) - flight_range(angle - eps, speed)) / (2 * eps)
print(f"range at {math.degrees(angle):.1f} degrees: {distance:.3f} m")
print(f"d range / d angle: srcgrad {slope:.6f}, finite differences {numeric:.6f}")
assert abs(slope - numeric) < 1e-4 * max(1.0, abs(numeric)), "derivative does not match finite differences"

for _ in range(50):
    distance, slope = drange(angle, speed)
    angle = angle + 2e-3 * slope
print(f"best angle {math.degrees(angle):.2f} degrees, range {distance:.3f} m")
assert 35.0 < math.degrees(angle) < 45.0
