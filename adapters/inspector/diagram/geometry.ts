/**
 * The little plane geometry the SVG needs: cutting a routed path at a box's border, and turning a
 * polyline into a smooth SVG path.
 *
 * @module
 */

/**
 * A point in SVG user units.
 *
 * @example
 * ```ts
 * const origin: Point = { x: 0, y: 0 };
 * ```
 */
export interface Point {
  readonly x: number;
  readonly y: number;
}

/**
 * An axis-aligned box, `x`/`y` its top-left corner.
 *
 * @example
 * ```ts
 * const box: Box = { x: 0, y: 0, width: 80, height: 28 };
 * ```
 */
export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/**
 * Whether a point lies strictly inside a box.
 *
 * @example
 * ```ts
 * inside({ x: 5, y: 5 }, { x: 0, y: 0, width: 10, height: 10 }); // true
 * ```
 */
export const inside = (p: Point, b: Box): boolean => p.x > b.x && p.x < b.x + b.width && p.y > b.y && p.y < b.y + b.height;

/**
 * The point halfway along a polyline, measured by length.
 *
 * @example
 * ```ts
 * midpoint([{ x: 0, y: 0 }, { x: 10, y: 0 }, { x: 10, y: 10 }]); // { x: 10, y: 0 }
 * ```
 */
export function midpoint(points: readonly Point[]): Point {
  const segments = points.slice(1).map((p, i) => ({ a: points[i]!, b: p, length: Math.hypot(p.x - points[i]!.x, p.y - points[i]!.y) }));
  let rest = segments.reduce((sum, s) => sum + s.length, 0) / 2;
  for (const { a, b, length } of segments) {
    if (rest <= length && length > 0) return { x: a.x + ((b.x - a.x) * rest) / length, y: a.y + ((b.y - a.y) * rest) / length };
    rest -= length;
  }
  return points[0] ?? { x: 0, y: 0 };
}

// Where the segment from `a` (inside the box) to `b` (outside) crosses its border.
function exit(a: Point, b: Point, box: Box): Point {
  let t = 1;
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  if (dx > 0) t = Math.min(t, (box.x + box.width - a.x) / dx);
  if (dx < 0) t = Math.min(t, (box.x - a.x) / dx);
  if (dy > 0) t = Math.min(t, (box.y + box.height - a.y) / dy);
  if (dy < 0) t = Math.min(t, (box.y - a.y) / dy);
  return { x: a.x + t * dx, y: a.y + t * dy };
}

/**
 * Drops the part of a path that starts inside `box`, so that it starts on the border where it
 * last leaves the box; a path that never leaves it is returned whole.
 *
 * @example
 * ```ts
 * clipStart([{ x: 5, y: 5 }, { x: 20, y: 5 }], { x: 0, y: 0, width: 10, height: 10 }); // [{ x: 10, y: 5 }, { x: 20, y: 5 }]
 * ```
 */
export function clipStart(points: readonly Point[], box: Box): Point[] {
  let last = -1;
  points.forEach((p, i) => {
    if (inside(p, box)) last = i;
  });
  if (last < 0 || last === points.length - 1) return [...points];
  return [exit(points[last]!, points[last + 1]!, box), ...points.slice(last + 1)];
}

/**
 * The mirror of {@link clipStart}: the path ends on the border where it first enters `box`.
 *
 * @example
 * ```ts
 * clipEnd([{ x: 20, y: 5 }, { x: 5, y: 5 }], { x: 0, y: 0, width: 10, height: 10 }); // [{ x: 20, y: 5 }, { x: 10, y: 5 }]
 * ```
 */
export function clipEnd(points: readonly Point[], box: Box): Point[] {
  return clipStart([...points].reverse(), box).reverse();
}

const r = (n: number): string => String(Math.round(n * 10) / 10);

/**
 * An SVG path through the points, corners rounded with quadratic curves through the midpoints
 * (the look of d3's basis curve without d3).
 *
 * @example
 * ```ts
 * pathData([{ x: 0, y: 0 }, { x: 10, y: 0 }, { x: 10, y: 10 }]); // 'M0 0 L5 0 Q10 0 10 5 L10 10'
 * ```
 */
export function pathData(points: readonly Point[]): string {
  const [first, ...rest] = points;
  if (first === undefined) return '';
  const parts = [`M${r(first.x)} ${r(first.y)}`];
  rest.forEach((p, i) => {
    const next = rest[i + 1];
    if (next === undefined) {
      parts.push(`L${r(p.x)} ${r(p.y)}`);
      return;
    }
    const prev = i === 0 ? first : rest[i - 1]!;
    parts.push(`L${r((prev.x + p.x) / 2)} ${r((prev.y + p.y) / 2)}`, `Q${r(p.x)} ${r(p.y)} ${r((p.x + next.x) / 2)} ${r((p.y + next.y) / 2)}`);
  });
  return parts.join(' ');
}
