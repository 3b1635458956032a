/// A cell position: `x` is the column, `y` the row, both zero-based.
public struct Point: Hashable, Sendable {
    /// The column, counted from 0 at the left.
    public var x: Int
    /// The row, counted from 0 at the top.
    public var y: Int
    /// The cell at column `x`, row `y`. Negative values are allowed (off screen).
    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
    /// The top-left cell.
    public static let zero = Point(x: 0, y: 0)
}

/// A size in cells.
public struct Size: Hashable, Sendable {
    /// Columns.
    public var width: Int
    /// Rows.
    public var height: Int
    /// A size of `width` columns by `height` rows; values are not clamped.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
    /// No cells.
    public static let zero = Size(width: 0, height: 0)
}

/// A rectangle of cells. Empty when either side is zero or less.
public struct Rect: Hashable, Sendable {
    /// The top-left cell.
    public var origin: Point
    /// The number of columns and rows.
    public var size: Size

    /// A rectangle at `origin` of `size`; values are not clamped.
    public init(origin: Point, size: Size) {
        self.origin = origin
        self.size = size
    }

    /// A rectangle whose top-left cell is (`x`, `y`), `width` columns wide and `height` rows high.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
    }

    /// The empty rectangle at the origin.
    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    /// The left column.
    public var x: Int { origin.x }
    /// The top row.
    public var y: Int { origin.y }
    /// The number of columns.
    public var width: Int { size.width }
    /// The number of rows.
    public var height: Int { size.height }
    /// The first column past the right edge (exclusive).
    public var maxX: Int { origin.x + size.width }
    /// The first row past the bottom edge (exclusive).
    public var maxY: Int { origin.y + size.height }
    /// True when the width or the height is zero or less: such a rectangle holds no cell.
    public var isEmpty: Bool { size.width <= 0 || size.height <= 0 }

    /// True when `point` lies inside.
    public func contains(_ point: Point) -> Bool {
        point.x >= x && point.x < maxX && point.y >= y && point.y < maxY
    }

    /// The overlap of two rectangles (empty, at `origin`, when they do not meet).
    public func intersection(_ other: Rect) -> Rect {
        let left = max(x, other.x)
        let top = max(y, other.y)
        let right = min(maxX, other.maxX)
        let bottom = min(maxY, other.maxY)
        return Rect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    /// The rectangle shrunk by `amount` cells on every side.
    public func insetBy(_ amount: Int) -> Rect {
        Rect(x: x + amount, y: y + amount, width: max(0, width - 2 * amount), height: max(0, height - 2 * amount))
    }

    /// A rectangle of `size` centred in this one (clamped to fit).
    public func centered(_ size: Size) -> Rect {
        let w = min(size.width, width)
        let h = min(size.height, height)
        return Rect(x: x + (width - w) / 2, y: y + (height - h) / 2, width: w, height: h)
    }
}
