/// Lays its visible subviews out in a row or a column, by their `length`.
///
/// Fixed lengths are served first, then minimums; what is left is shared among `minimum`
/// and `flexible` subviews by weight (a minimum counts as weight 1). When there is not
/// enough room, later subviews are cut.
@MainActor
public final class StackView: View {
    /// The direction subviews are laid out in.
    public enum Axis: Hashable, Sendable {
        /// Left to right (`horizontal`) or top to bottom (`vertical`).
        case horizontal, vertical
    }

    /// `.vertical` stacks subviews top to bottom, `.horizontal` left to right. Takes effect at
    /// the next layout.
    public var axis: Axis
    /// Empty cells between subviews.
    public var spacing: Int

    /// A stack of `subviews` (added in order; none may have a superview).
    public init(axis: Axis, spacing: Int = 0, _ subviews: [View] = []) {
        self.axis = axis
        self.spacing = spacing
        super.init()
        for view in subviews { addSubview(view) }
    }

    /// Sets the frames of the visible subviews along `axis` by their `length`, separated by
    /// `spacing`; each spans the full frame across the axis. Hidden subviews take no room.
    public override func layoutSubviews() {
        let visible = subviews.filter { !$0.isHidden }
        let total = axis == .vertical ? frame.height : frame.width
        let sizes = Self.distribute(total - spacing * max(0, visible.count - 1), among: visible.map(\.length))
        var offset = 0
        for (view, size) in zip(visible, sizes) {
            let size = max(0, min(size, total - offset))
            view.frame =
                axis == .vertical
                ? Rect(x: frame.x, y: frame.y + offset, width: frame.width, height: size)
                : Rect(x: frame.x + offset, y: frame.y, width: size, height: frame.height)
            offset += size + spacing
        }
    }

    /// The sizes for `lengths` in `total` cells.
    nonisolated static func distribute(_ total: Int, among lengths: [Length]) -> [Int] {
        var sizes = lengths.map { length -> Int in
            switch length {
            case .fixed(let n), .minimum(let n): max(0, n)
            case .flexible: 0
            }
        }
        let weights = lengths.map { length -> Int in
            switch length {
            case .fixed: 0
            case .minimum: 1
            case .flexible(let weight): max(0, weight)
            }
        }
        let left = total - sizes.reduce(0, +)
        let totalWeight = weights.reduce(0, +)
        guard left > 0, totalWeight > 0 else { return sizes }
        var given = 0
        var weightSoFar = 0
        for index in sizes.indices where weights[index] > 0 {
            weightSoFar += weights[index]
            // Cumulative rounding: the shares add up to exactly `left`.
            let share = left * weightSoFar / totalWeight - given
            sizes[index] += share
            given += share
        }
        return sizes
    }
}
