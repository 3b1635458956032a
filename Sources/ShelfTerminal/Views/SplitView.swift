/// Two views side by side when there is room, one above the other when there is height,
/// else only the first: a list with its detail pane.
@MainActor
public final class SplitView: View {
    /// Which panes show.
    public enum Mode: Hashable, Sendable {
        /// Decide from the size: side by side, stacked, or the first alone.
        case automatic
        /// Only the first view, full size.
        case firstOnly
        /// Only the second view, full size.
        case secondOnly
    }

    /// The primary pane (a list, say); it is always shown in `.automatic` mode.
    public let first: View
    /// The secondary pane (a detail, say); in `.automatic` mode it shows only when the frame is
    /// at least `minimumWidthForColumns` wide or `minimumHeightForRows` high.
    public let second: View
    /// Which panes show. Setting a different value redraws.
    public var mode: Mode = .automatic { didSet { if mode != oldValue { setNeedsDisplay() } } }
    /// Side by side from this width on.
    public var minimumWidthForColumns: Int
    /// Stacked from this height on (when not side by side).
    public var minimumHeightForRows: Int
    /// The first view's share of the room, in percent.
    public var firstShare: Int

    /// Splits `first` and `second`, which become its subviews (they must have no superview).
    /// The thresholds are in cells, `firstShare` in percent.
    public init(
        _ first: View, _ second: View, minimumWidthForColumns: Int = 110, minimumHeightForRows: Int = 20,
        firstShare: Int = 60
    ) {
        self.first = first
        self.second = second
        self.minimumWidthForColumns = minimumWidthForColumns
        self.minimumHeightForRows = minimumHeightForRows
        self.firstShare = firstShare
        super.init()
        addSubview(first)
        addSubview(second)
    }

    /// True when both views show.
    public var showsBoth: Bool {
        mode == .automatic && (frame.width >= minimumWidthForColumns || frame.height >= minimumHeightForRows)
    }

    /// Hides the pane that does not show and gives the frame to the panes that do: side by side,
    /// stacked, or one alone, depending on `mode` and the frame's size.
    public override func layoutSubviews() {
        first.isHidden = mode == .secondOnly
        second.isHidden = mode == .firstOnly || (mode == .automatic && !showsBoth)
        switch mode {
        case .firstOnly:
            first.frame = frame
        case .secondOnly:
            second.frame = frame
        case .automatic where frame.width >= minimumWidthForColumns:
            let width = frame.width * firstShare / 100
            first.frame = Rect(x: frame.x, y: frame.y, width: width, height: frame.height)
            second.frame = Rect(x: frame.x + width, y: frame.y, width: frame.width - width, height: frame.height)
        case .automatic where frame.height >= minimumHeightForRows:
            let height = frame.height * firstShare / 100
            first.frame = Rect(x: frame.x, y: frame.y, width: frame.width, height: height)
            second.frame = Rect(x: frame.x, y: frame.y + height, width: frame.width, height: frame.height - height)
        case .automatic:
            first.frame = frame
        }
    }
}
