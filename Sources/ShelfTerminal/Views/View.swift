/// How much room a view takes along its stack's axis.
public enum Length: Hashable, Sendable {
    /// Exactly this many cells.
    case fixed(Int)
    /// At least this many cells, plus a share of what is left, like `flexible(1)`.
    case minimum(Int)
    /// A share of what is left after fixed and minimum sizes, by weight.
    case flexible(Int = 1)
}

/// A rectangle of the screen that draws itself and holds subviews.
///
/// Frames are in screen cells, absolute. A view draws in `draw(in:)`, clipped to its frame,
/// then its subviews draw over it in order (later ones on top). Layout runs before every
/// draw: `layoutSubviews()` sets the subviews' frames. Setting a property that changes the
/// look marks the window for redraw; `setNeedsDisplay()` does it by hand. Main actor only.
@MainActor
open class View {
    /// The subviews in drawing order: later ones draw on top.
    public private(set) var subviews: [View] = []
    /// The view this one was added to, or nil. Weak: a view owns its subviews.
    public private(set) weak var superview: View?
    /// The view's rectangle on the screen.
    public var frame: Rect = .zero
    /// A hidden view and its subviews neither draw nor take room in a stack.
    public var isHidden = false {
        didSet { if isHidden != oldValue { setNeedsDisplay() } }
    }
    /// The room the view asks for in a stack.
    public var length: Length = .flexible()
    /// When set, the frame is filled with this style before drawing.
    public var background: Style?
    /// Called when something in the tree below needs a redraw (set on the root by a window).
    var onNeedsDisplay: (@MainActor () -> Void)?

    /// A view with an empty frame, no subviews, a `.flexible()` length and no background.
    public init() {}

    /// Adds `view` on top of the existing subviews. It must not have a superview.
    public func addSubview(_ view: View) {
        precondition(view.superview == nil, "\(type(of: view)) already has a superview; remove it first")
        precondition(view !== self && !isDescendant(of: view), "a view cannot contain itself")
        subviews.append(view)
        view.superview = self
        setNeedsDisplay()
    }

    /// Removes the view from its superview (nothing when it has none).
    public func removeFromSuperview() {
        guard let superview else { return }
        superview.subviews.removeAll { $0 === self }
        self.superview = nil
        superview.setNeedsDisplay()
    }

    /// True when `view` is this view or one of its ancestors.
    public func isDescendant(of view: View) -> Bool {
        var current: View? = self
        while let candidate = current {
            if candidate === view { return true }
            current = candidate.superview
        }
        return false
    }

    /// Asks the window to draw again soon (coalesced).
    public func setNeedsDisplay() {
        var root: View = self
        while let parent = root.superview { root = parent }
        root.onNeedsDisplay?()
    }

    /// Sets the subviews' frames from `frame`. The default gives each subview the whole frame.
    open func layoutSubviews() {
        for subview in subviews { subview.frame = frame }
    }

    /// Draws the view's own content; subviews are drawn afterwards, over it.
    open func draw(in canvas: inout Canvas) {}

    /// True while the view animates (e.g. a spinner): the application then redraws on a timer.
    open var isAnimating: Bool { false }

    /// Lays out and draws the tree below this view.
    func render(in canvas: inout Canvas, tick: Int) {
        guard !isHidden, !frame.isEmpty else { return }
        layoutSubviews()
        canvas.withClip(frame) { canvas in
            if let background { canvas.fill(frame, style: background) }
            if let animated = self as? any Animated { animated.advance(to: tick) }
            draw(in: &canvas)
            for subview in subviews { subview.render(in: &canvas, tick: tick) }
        }
    }

    /// True when this view or a visible subview animates.
    var hasVisibleAnimation: Bool {
        guard !isHidden else { return false }
        return isAnimating || subviews.contains { $0.hasVisibleAnimation }
    }
}

/// A view whose look follows the window's animation tick.
@MainActor
protocol Animated {
    func advance(to tick: Int)
}
