internal import ShelfTerminal

/// A form's rows over a foot that stays: when the rows do not all fit above the foot, they
/// scroll, a group at a time (a field and the line of its error), to keep the focused group in
/// sight; the foot (a hint line, a message) is always laid out at the bottom.
///
/// Hostile round 8: the item editor at 80×10 was a stack cut from the bottom, which lost its
/// hint line and hid the notes field. When every row and the foot fit at their lengths, the
/// form is roomy: each row gets its least (`.fixed` n, `.minimum` n, else 1; hidden, none) and
/// the first row that is not `.fixed` (the notes) what is left, so rows stay put as errors come
/// and go. Else it is compact: an empty label (a field's error line with no error) takes no row,
/// a wrapping label of the foot the lines its text needs, up to its length; the foot gives up
/// a message's lines before the focused group loses its row, and the groups scroll.
@MainActor
final class ScrollingForm: View {
    /// The rows, in groups that scroll together.
    let groups: [[View]]
    /// Under the rows, in order: always laid out.
    let foot: [View]
    /// The group kept in sight. Setting another redraws.
    var focusedGroup = 0 { didSet { if focusedGroup != oldValue { setNeedsDisplay() } } }
    /// The first group shown when they do not all fit.
    private(set) var firstGroup = 0
    /// The groups shown at the last layout.
    private(set) var shownGroups: Range<Int> = 0..<0

    /// "↑" and "↓" at the right edge of the first and last row shown while fields are out of
    /// sight above or below (drawn over the rows).
    private let marks = ScrollMarks()

    init(groups: [[View]], foot: [View]) {
        self.groups = groups
        self.foot = foot
        super.init()
        for view in groups.joined() { addSubview(view) }
        for view in foot { addSubview(view) }
        addSubview(marks)
    }

    /// The least a view takes: its fixed or minimum length, 1 for a flexible one, none hidden;
    /// when `compact`, none for an empty label (a field's error line with no error).
    private static func least(_ view: View, compact: Bool = false) -> Int {
        guard !view.isHidden else { return 0 }
        if compact, let label = view as? Label, label.text.isEmpty { return 0 }
        switch view.length {
        case .fixed(let n), .minimum(let n): return max(0, n)
        case .flexible: return 1
        }
    }

    /// The rows a view of the foot takes at `width`: its length, or when `compact`, for a
    /// wrapping label, the lines its text needs, up to its length.
    private static func footHeight(_ view: View, width: Int, compact: Bool) -> Int {
        guard compact, let label = view as? Label, label.wraps, !label.isHidden else { return least(view) }
        guard !label.text.isEmpty else { return 0 }
        return min(least(label), TextLayout.wrap(Sanitizer.sanitize(label.text), to: width).count)
    }

    override func layoutSubviews() {
        // Roomy when everything fits at its length (the rows do not move as errors come and
        // go), else compact.
        let roomy =
            groups.joined().map { Self.least($0) }.reduce(0, +) + foot.map { Self.least($0) }.reduce(0, +)
            <= frame.height
        var footHeights = foot.map { Self.footHeight($0, width: frame.width, compact: !roomy) }
        let focused = min(max(0, focusedGroup), max(0, groups.count - 1))
        let groupHeights = groups.map { $0.map { Self.least($0, compact: !roomy) }.reduce(0, +) }
        let need = groups.isEmpty ? 0 : max(1, groupHeights[focused])
        // A message gives up lines (the last view's first, a hint line keeping its row) while
        // the focused group has no room.
        for index in footHeights.indices.reversed().dropFirst() {
            while footHeights[index] > 1, frame.height - footHeights.reduce(0, +) < need { footHeights[index] -= 1 }
        }
        let room = max(0, frame.height - footHeights.reduce(0, +))
        var y = frame.y
        if groupHeights.reduce(0, +) <= room {
            // All fit: each its least, and what is left to the first row that grows (the notes).
            let views = groups.joined().filter { !$0.isHidden }
            var sizes = views.map { Self.least($0, compact: !roomy) }
            if let grows = views.firstIndex(where: { if case .fixed = $0.length { false } else { true } }) {
                sizes[grows] += room - sizes.reduce(0, +)
            }
            for (view, size) in zip(views, sizes) {
                view.frame = size > 0 ? Rect(x: frame.x, y: y, width: frame.width, height: size) : .zero
                y += size
            }
            for view in groups.joined() where view.isHidden { view.frame = .zero }
            firstGroup = 0
            shownGroups = 0..<groups.count
        } else {
            // Scroll: the focused group in sight, as few groups moved as can be.
            firstGroup = min(firstGroup, focused)
            func height(_ range: ClosedRange<Int>) -> Int { groupHeights[range].reduce(0, +) }
            while firstGroup < focused, height(firstGroup...focused) > room { firstGroup += 1 }
            while firstGroup > 0, height((firstGroup - 1)...(groups.count - 1)) <= room { firstGroup -= 1 }
            var end = firstGroup
            var left = room
            for index in groups.indices {
                for view in groups[index] { view.frame = .zero }
                guard index >= firstGroup, left > 0 else { continue }
                // A group that does not fit whole (the notes) is shown in what is left.
                for view in groups[index] {
                    let size = min(Self.least(view, compact: true), left)
                    guard size > 0 else { continue }
                    view.frame = Rect(x: frame.x, y: y, width: frame.width, height: size)
                    y += size
                    left -= size
                }
                end = index + 1
            }
            shownGroups = firstGroup..<max(firstGroup, end)
        }
        marks.frame = Rect(x: frame.x, y: frame.y, width: frame.width, height: y - frame.y)
        marks.above = hasMoreAbove
        marks.below = hasMoreBelow
        var footY = frame.maxY - footHeights.reduce(0, +)
        for (view, height) in zip(foot, footHeights) {
            view.frame = height > 0 ? Rect(x: frame.x, y: footY, width: frame.width, height: height) : .zero
            footY += height
        }
    }

    /// True when groups are out of sight above the first shown.
    var hasMoreAbove: Bool { shownGroups.lowerBound > 0 }
    /// True when groups are out of sight below the last shown.
    var hasMoreBelow: Bool { shownGroups.upperBound < groups.count }
}

/// Marks that more rows are out of sight: "↑" at the top right of its frame, "↓" at the bottom
/// right. Draws nothing else.
@MainActor
private final class ScrollMarks: View {
    var above = false
    var below = false

    override func draw(in canvas: inout Canvas) {
        guard frame.width > 0, frame.height > 0 else { return }
        if above { canvas.draw("↑", at: Point(x: frame.maxX - 1, y: frame.y), style: Theme.hint, width: 1) }
        if below { canvas.draw("↓", at: Point(x: frame.maxX - 1, y: frame.maxY - 1), style: Theme.hint, width: 1) }
    }
}
