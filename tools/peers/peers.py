#!/usr/bin/env python3
"""Peer baselines for lnote-render: how fast do Skia and Blend2D raster one page's strokes?

Usage:
    tools/.venv/bin/python tools/peers/peers.py CONTENT_FILE --page-width 8340 --page-height 11940 \
        [--runs 7] [--json] [--save-dir DIR] [--all-pen]

For each scale (thumb = 320 px wide, 1x, 2x) every stroke of the page content file
(lnote-format.md section 4) is filled once, anti-aliased, on a white canvas, with its
colour, its tool's blending and one opacity (below), by

  * Skia    -- the exact shape of section 6: the union of each sample's disc and of the
               outer-tangent quadrilateral of every two consecutive discs, one path per
               stroke, nonzero fill;
  * Blend2D -- the approximate outline a Blend2D user would draw: one polygon per stroke
               from the left and right offsets along the averaged normal, with round caps.

Neither is pixel-exact. Skia's anti-aliasing adds up the coverage of overlapping
contours inside a pixel, so edges where the stroke's circles and quads cross come out
too dark (by up to ~0.3 coverage against a supersampled exact union). The Blend2D
outline pinches at sharp turns and cusps, where the averaged normal no longer spans the
pen's width. Compare their speed, not their pixels, with lnote-render's.

Drawn like section 6, the same way for both libraries (plan_looks makes one Look per stroke
that both draw):

  * highlighter: multiply blending (Skia BlendMode.kMultiply, Blend2D BLCompOp.MULTIPLY),
    which on an opaque canvas is section 6's dst + (dst*src - dst)*a*c; pen and pencil
    source-over. Both blend sRGB-encoded 8-bit values, as section 6 does.
  * thin strokes: every radius below 0.5 px is drawn at 0.5 px.
  * opacity: colour alpha x the stroke's MEAN section 6 factor, pencil factor
    (0.25 + 0.75 p/1000, pencil only) x thin factor (rho/0.5 where rho < 0.5 px), averaged
    over the drawn shape by area (stroke_opacity). Compositing is linear in opacity x
    coverage, so each stroke lays down as much ink as section 6 asks for, only evenly
    (measured on the bench pages at thumb and 1x: both peers' total ink within 3 % of
    lnote-render's; with --all-pen, 36 % too little on the highlighter page, covering the
    ink under it, and 37 % too much on the pencil page).

Not drawn like section 6 (what one fill per stroke cannot carry, or what was not wanted):

  * opacity is constant along a stroke: a pencil stroke does not lighten where the
    pressure drops, a tapering thin end does not fade, and where a stroke overlaps itself
    the mean counts, not the largest factor. Per-segment fills would give each segment its
    own alpha, but consecutive segments share a disc, so every joint would be composited
    twice (darker joints, the opposite of "covered once") and the page would cost ~100
    fills per stroke instead of one. Getting it exact would take a layer per stroke
    (coverage and factor kept apart, combined as section 6 does, then composited), which
    would time layer allocation and compositing rather than drawing a stroke.
  * the canvas is cleared to white, not to the page's paper colour (the same work), and
    neither template nor images are drawn: lnote-bench's raster figure, too, is the
    clear and the strokes only.
  * the pixel-level errors above: Skia's over-dark edges, Blend2D's pinching.

--all-pen draws the old way, for comparison: every tool a pen (source-over, colour alpha),
radii as they are (no thin-stroke rule).

Paths, paints and canvases are made before the clock starts; the clock covers only the
raster work (clear + fills + flush). Both libraries run single-threaded: a Skia raster
canvas draws on the calling thread, and a BLContext created without a thread count is
synchronous. Each figure is the median of --runs timed runs after one warm-up run.
"""

import argparse
import gc
import json
import math
import statistics
import time
from pathlib import Path
from typing import NamedTuple

import blend2d
import numpy as np
import skia
from PIL import Image

THUMB_WIDTH_PX = 320
THIN_RADIUS_PX = 0.5  # section 6: thinner strokes are drawn at this radius, more transparent


# ---------------------------------------------------------------- loading

def parse_color(text):
    """'#RRGGBB' or '#RRGGBBAA' (sRGB, not premultiplied) -> (r, g, b, a) as 0-255 ints."""
    digits = text[1:]
    if not text.startswith("#") or len(digits) not in (6, 8):
        raise ValueError(f"bad colour {text!r}")
    rgba = [int(digits[i:i + 2], 16) for i in range(0, len(digits), 2)]
    return tuple(rgba) if len(rgba) == 4 else (*rgba, 255)


class Stroke(NamedTuple):
    samples: np.ndarray  # (n, 4) floats: x, y, r in 0.1 pt, pressure p in 1/1000
    rgba: tuple          # 0-255 ints, not premultiplied
    tool: str            # "pen", "pencil" or "highlighter"


def load_strokes(content_file):
    """The page's strokes in z-order, as [Stroke]."""
    with open(content_file, "rb") as f:
        content = json.load(f)
    strokes = []
    for element in content["elements"]:
        if element.get("type") != "stroke" or not element["points"]:
            continue  # other elements are not drawn by the peers; an empty stroke draws nothing
        samples = np.asarray(element["points"], dtype=np.float64).reshape(-1, 5)[:, :4]
        tool = element.get("tool")
        tool = tool if tool in ("pencil", "highlighter") else "pen"  # section 4: unknown is pen
        strokes.append(Stroke(samples, parse_color(element["color"]), tool))
    return strokes


def canvas_size(page_width, page_height, scale):
    """Section 6: max(1, round(w/10 * s)), halves rounding up."""
    return (max(1, math.floor(page_width / 10 * scale + 0.5)),
            max(1, math.floor(page_height / 10 * scale + 0.5)))


# ---------------------------------------------------------------- what each library draws

class Look(NamedTuple):
    """One stroke as both libraries draw it at one scale: the same for Skia and Blend2D."""
    x: np.ndarray    # sample centres in pixels
    y: np.ndarray
    r: np.ndarray    # radii in pixels, raised to THIN_RADIUS_PX unless --all-pen
    rgb: tuple       # 0-255 ints
    alpha: float     # opacity 0..1: colour alpha x the stroke's mean factor (see stroke_opacity)
    multiply: bool   # highlighter: multiply blending instead of source-over


def area_weights(x, y, r):
    """Each sample's share of the area of the tapered capsule it belongs to: its radius times
    the lengths of its two segments (half of each segment's area goes to either end, as
    2 r x length / 2), plus a half disc at the first and at the last sample for the caps."""
    seg = np.hypot(np.diff(x), np.diff(y))
    weights = r * (np.concatenate(([0.0], seg)) + np.concatenate((seg, [0.0])))
    weights[0] += math.pi / 2 * r[0] ** 2
    weights[-1] += math.pi / 2 * r[-1] ** 2  # a single sample gets both halves: its disc
    return weights


def stroke_opacity(rho, drawn, pressure, tool, x, y):
    """The stroke's mean opacity factor over the area it is drawn with.

    Section 6 varies opacity inside one stroke: the pencil factor 0.25 + 0.75 p/1000, and the
    thin-stroke factor rho/0.5 where the radius rho is below 0.5 px. A library fill carries one
    colour, so every point of the stroke gets the area-weighted mean of (pencil factor x thin
    factor). Compositing onto a page is linear in opacity x coverage, so the stroke lays down
    the same total amount of ink as section 6 asks for, spread evenly along it. For a stroke
    that is thin all along, this is the mean of rho/0.5 along its length (caps aside); drawn
    at 0.5 px it then lays down the ink of its true width (2 rho x length), which is the
    point of the rule. A plain mean over samples would weigh the slow parts of a stroke
    (samples come at a fixed rate in time) and, for a partly thin stroke, dim its thick part.
    """
    factor = np.minimum(1.0, rho / THIN_RADIUS_PX)  # radius exactly 0 draws nothing
    if tool == "pencil":
        factor = factor * (0.25 + 0.75 * pressure / 1000)
    weights = area_weights(x, y, drawn)  # drawn >= 0.5 px, so the caps make the sum positive
    return float(np.dot(weights, factor) / weights.sum())


def plan_looks(strokes, scale, all_pen):
    """[Look] in z-order. all_pen: every stroke a pen at its true radius (the old behaviour)."""
    looks = []
    for samples, (red, green, blue, alpha), tool in strokes:
        x, y, rho = (samples[:, :3] * (scale / 10)).T
        if all_pen:
            looks.append(Look(x, y, rho, (red, green, blue), alpha / 255, False))
            continue
        drawn = np.maximum(rho, THIN_RADIUS_PX)
        opacity = alpha / 255 * stroke_opacity(rho, drawn, samples[:, 3], tool, x, y)
        looks.append(Look(x, y, drawn, (red, green, blue), opacity, tool == "highlighter"))
    return looks


# ---------------------------------------------------------------- Skia: exact shape

def tangent_quads(x, y, r):
    """Outer-tangent quadrilaterals of consecutive circles, as a (k, 4, 2) array.

    The corners are wound like Skia's clockwise circles (positive shoelace area with y
    down), so that under the nonzero rule circles and quads add up instead of cancelling.
    Pairs where one circle contains the other have no straight part and are left out.
    """
    dx, dy, dr = np.diff(x), np.diff(y), r[:-1] - r[1:]
    d = np.hypot(dx, dy)
    keep = d > np.abs(dr)
    dx, dy, dr, d = dx[keep], dy[keep], dr[keep], d[keep]
    ux, uy = dx / d, dy / d
    # The tangent normal n makes cos(angle(n, u)) = (r1 - r2) / d with the centre line u.
    cos_a = dr / d
    sin_a = np.sqrt(1.0 - cos_a * cos_a)
    plus = np.stack([cos_a * ux - sin_a * uy, cos_a * uy + sin_a * ux], axis=-1)
    minus = np.stack([cos_a * ux + sin_a * uy, cos_a * uy - sin_a * ux], axis=-1)
    c1 = np.stack([x[:-1][keep], y[:-1][keep]], axis=-1)
    c2 = np.stack([x[1:][keep], y[1:][keep]], axis=-1)
    r1, r2 = r[:-1][keep, None], r[1:][keep, None]
    return np.stack([c1 + r1 * minus, c2 + r2 * minus, c2 + r2 * plus, c1 + r1 * plus], axis=1)


def skia_stroke_path(x, y, r):
    path = skia.Path()  # nonzero (kWinding) is Skia's default fill type
    for cx, cy, cr in zip(x.tolist(), y.tolist(), r.tolist()):
        path.addCircle(cx, cy, cr, skia.PathDirection.kCW)
    for (ax, ay), (bx, by), (cx, cy), (dx, dy) in tangent_quads(x, y, r).tolist():
        path.moveTo(ax, ay)
        path.lineTo(bx, by)
        path.lineTo(cx, cy)
        path.lineTo(dx, dy)
        path.close()
    return path


def build_skia(looks):
    paints = {}  # one Paint per distinct colour, opacity and blend, shared by its strokes
    draws = []
    for look in looks:
        key = (look.rgb, look.alpha, look.multiply)
        if key not in paints:
            r, g, b = (c / 255 for c in look.rgb)
            paints[key] = skia.Paint(AntiAlias=True, Color4f=skia.Color4f(r, g, b, look.alpha),
                                     BlendMode=skia.BlendMode.kMultiply if look.multiply
                                     else skia.BlendMode.kSrcOver)
        draws.append((skia_stroke_path(look.x, look.y, look.r), paints[key]))
    return draws


def raster_skia(surface, draws):
    canvas = surface.getCanvas()
    canvas.clear(skia.ColorWHITE)
    for path, paint in draws:
        canvas.drawPath(path, paint)
    # A raster surface draws immediately; flushing keeps the timing honest should it not.
    surface.flushAndSubmit()


def skia_pixels(surface):
    return surface.makeImageSnapshot().toarray(colorType=skia.ColorType.kRGBA_8888_ColorType)


# ---------------------------------------------------------------- Blend2D: approximate outline

def merge_repeated_points(x, y, r):
    """Consecutive samples at the same place have no direction, hence no normal: keep one,
    with the largest radius of the run, since concentric discs union to the largest."""
    moved = np.ones(len(x), dtype=bool)
    moved[1:] = (np.diff(x) != 0) | (np.diff(y) != 0)
    starts = np.flatnonzero(moved)
    return x[starts], y[starts], np.maximum.reduceat(r, starts)


def sample_normals(x, y):
    """Unit normal per sample: the segments' left normals, averaged at interior samples."""
    dx, dy = np.diff(x), np.diff(y)
    length = np.hypot(dx, dy)
    seg = np.stack([dy / length, -dx / length], axis=-1)  # direction rotated by -90 degrees
    normals = np.empty((len(x), 2))
    normals[0], normals[-1] = seg[0], seg[-1]
    summed = seg[:-1] + seg[1:]
    norm = np.hypot(summed[:, 0], summed[:, 1])[:, None]
    # Where the pen doubles back the average vanishes; keep the incoming normal there.
    normals[1:-1] = np.where(norm > 1e-9, summed / np.maximum(norm, 1e-9), seg[:-1])
    return normals


def blend2d_stroke_path(x, y, r):
    x, y, r = merge_repeated_points(x, y, r)
    path = blend2d.BLPath()
    if len(x) == 1:
        path.add_circle(x[0], y[0], r[0])
        return path
    normals = sample_normals(x, y)
    left = np.stack([x, y], axis=-1) + r[:, None] * normals
    right = np.stack([x, y], axis=-1) - r[:, None] * normals
    # One closed contour: left side forward, a half-circle cap around the last sample,
    # right side backward, a half-circle cap around the first sample. Blend2D angles
    # grow from +x toward +y, so sweeping +pi from the left normal passes the forward
    # direction at the end and the backward direction at the start.
    (lx, ly), *left_rest = left.tolist()
    path.move_to(lx, ly)
    for px, py in left_rest:
        path.line_to(px, py)
    end_angle = math.atan2(normals[-1, 1], normals[-1, 0])
    path.arc_to(x[-1], y[-1], r[-1], r[-1], end_angle, math.pi)
    for px, py in right[-2::-1].tolist():
        path.line_to(px, py)
    start_angle = math.atan2(-normals[0, 1], -normals[0, 0])
    path.arc_to(x[0], y[0], r[0], r[0], start_angle, math.pi)
    path.close()
    return path


def build_blend2d(looks):
    """[(path, colour, comp_op)]: comp_op is None where it is the previous draw's (the first
    draw's predecessor being the clear's SRC_OVER), so the clock covers no idle state changes,
    and --all-pen times what it always did plus one `is None` test per fill."""
    draws = []
    current = blend2d.BLCompOp.SRC_OVER
    for look in looks:
        wanted = blend2d.BLCompOp.MULTIPLY if look.multiply else blend2d.BLCompOp.SRC_OVER
        # The binding's set_fill_style takes (r, g, b, a) floats in 0..1; 0-255 ints are
        # accepted without complaint and paint wrong colours.
        color = (*(c / 255 for c in look.rgb), look.alpha)
        draws.append((blend2d_stroke_path(look.x, look.y, look.r), color,
                      wanted if wanted != current else None))
        current = wanted
    return draws


def make_blend2d_canvas(width, height):
    image = blend2d.BLImage()
    image.create(width, height, blend2d.BLFormat.PRGB32)
    # No creation info means thread count 0: Blend2D's synchronous, single-threaded mode.
    context = blend2d.BLContext(image)
    return image, context


def raster_blend2d(context, draws):
    context.comp_op = blend2d.BLCompOp.SRC_OVER  # the last run may have ended multiplying
    context.set_fill_style((1.0, 1.0, 1.0, 1.0))
    context.fill_all()
    for path, color, comp_op in draws:
        if comp_op is not None:
            context.comp_op = comp_op
        context.set_fill_style(color)
        context.fill_path(path)  # nonzero, anti-aliased: the context defaults
    # This binding's flush() takes no flags and it has no end(). Neither is needed for
    # honest timing: a synchronous context rasterizes each fill before it returns
    # (flush measures ~5 us after 2,000 fills), so the clock already covers the work.
    context.flush()


def blend2d_pixels(image):
    # The binding hands PRGB32 over as RGBA bytes; premultiplied, which is moot on an
    # opaque white canvas.
    return image.getDataAsNumPy()


# ---------------------------------------------------------------- timing and reporting

def timing_ms(raster, runs):
    """(median, min, max) in ms of `runs` timed calls of raster() after one warm-up."""
    raster()  # warm-up: first-touch page faults, Blend2D's JIT pipelines, Skia's caches
    times = []
    gc.disable()  # a collector pause is Python's cost, not the library's
    try:
        for _ in range(runs):
            start = time.perf_counter_ns()
            raster()
            times.append(time.perf_counter_ns() - start)
    finally:
        gc.enable()
    return statistics.median(times) / 1e6, min(times) / 1e6, max(times) / 1e6


def save_png(pixels, path):
    Image.fromarray(np.ascontiguousarray(pixels[:, :, :3])).save(path)


def measure(strokes, page_width, page_height, runs, save_dir, all_pen):
    scales = {"thumb": THUMB_WIDTH_PX / (page_width / 10), "1x": 1.0, "2x": 2.0}
    results = {}
    for name, scale in scales.items():
        width, height = canvas_size(page_width, page_height, scale)
        looks = plan_looks(strokes, scale, all_pen)

        skia_draws = build_skia(looks)
        surface = skia.Surface(width, height)  # raster, N32 premultiplied
        skia_ms = timing_ms(lambda: raster_skia(surface, skia_draws), runs)

        blend_draws = build_blend2d(looks)
        image, context = make_blend2d_canvas(width, height)
        blend_ms = timing_ms(lambda: raster_blend2d(context, blend_draws), runs)

        if save_dir is not None:
            save_png(skia_pixels(surface), save_dir / f"skia-{name}.png")
            save_png(blend2d_pixels(image), save_dir / f"blend2d-{name}.png")
        results[name] = {"width": width, "height": height}
        for library, (median, fastest, slowest) in (("skia", skia_ms), ("blend2d", blend_ms)):
            results[name].update({library: round(median, 2), f"{library}_min": round(fastest, 2),
                                  f"{library}_max": round(slowest, 2)})
    return results


def print_table(results, strokes, all_pen):
    samples = sum(len(stroke.samples) for stroke in strokes)
    drawn = "every tool as a pen (--all-pen)" if all_pen else "tools and thin strokes as section 6"
    print(f"{len(strokes)} strokes, {samples} samples, {drawn}; raster only, median ms")
    print(f"{'scale':<6} {'size':>11} {'skia exact':>11} {'blend2d approx':>15}")
    for name, r in results.items():
        size = f"{r['width']}x{r['height']}"
        print(f"{name:<6} {size:>11} {r['skia']:>11.1f} {r['blend2d']:>15.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("content_file", type=Path)
    parser.add_argument("--page-width", type=int, required=True, help="0.1 pt")
    parser.add_argument("--page-height", type=int, required=True, help="0.1 pt")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    parser.add_argument("--save-dir", type=Path,
                        help="write each library's render at each scale here")
    parser.add_argument("--all-pen", action="store_true",
                        help="draw every tool as a pen at its true radius, as before "
                             "(no multiply, no pencil opacity, no thin-stroke rule)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.save_dir is not None:
        args.save_dir.mkdir(parents=True, exist_ok=True)

    strokes = load_strokes(args.content_file)
    results = measure(strokes, args.page_width, args.page_height, args.runs, args.save_dir,
                      args.all_pen)
    print_table(results, strokes, args.all_pen)
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
