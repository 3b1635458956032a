/// Hosts a root controller at a size: lays it out, draws it into a canvas and routes input
/// to the focused controller. `Application` drives one with a real terminal, a
/// `HeadlessScreen` (in ShelfTerminalTesting) drives one in tests. Main actor only.
@MainActor
public final class Window {
    /// The controller at the root of the tree; the window holds it strongly for its whole life.
    public let rootController: Controller
    /// The screen size in cells, as given to `init(rootController:size:)` or `resize(to:)`;
    /// the root view's frame at the next `draw()`.
    public private(set) var size: Size
    /// Animation frame counter, advanced by the application while something animates.
    var tick = 0
    /// True when the tree changed since the last draw.
    public private(set) var needsDisplay = true
    /// Called (once per change burst) when `needsDisplay` becomes true.
    var onNeedsDisplay: (@MainActor () -> Void)?
    /// Called when a controller asks the application to quit.
    package var onQuit: (@MainActor () -> Void)?
    private var isClosed = false

    /// Shows `rootController` at `size`: loads its view and makes it appear.
    public init(rootController: Controller, size: Size) {
        self.rootController = rootController
        self.size = size
        precondition(rootController.parent == nil, "the root controller cannot have a parent")
        rootController.window = self
        rootController.view.onNeedsDisplay = { [unowned self] in setNeedsDisplay() }
        rootController.beginAppearance()
    }

    func setNeedsDisplay() {
        guard !needsDisplay else { return }
        needsDisplay = true
        onNeedsDisplay?()
    }

    /// Changes the size; the next draw lays out again.
    public func resize(to newSize: Size) {
        guard newSize != size else { return }
        size = newSize
        needsDisplay = true
        onNeedsDisplay?()
    }

    /// Lays out and draws the whole tree into a new canvas, changed or not.
    public func draw() -> Canvas {
        needsDisplay = false
        drawCount += 1
        var canvas = Canvas(size: size)
        let root = rootController.view
        root.frame = Rect(origin: .zero, size: size)
        root.render(in: &canvas, tick: tick)
        return canvas
    }

    /// Lays out and draws the tree only when something changed since the last draw (a view
    /// asked for display, the size changed); nil when the screen would be the same.
    public func drawIfNeeded() -> Canvas? {
        needsDisplay ? draw() : nil
    }

    /// How many times the tree was laid out and drawn (for tests of redraw economy).
    package private(set) var drawCount = 0

    /// True when a visible view animates.
    var isAnimating: Bool { rootController.view.hasVisibleAnimation }

    /// Routes one input event through the responder chain. Returns true when handled.
    @discardableResult
    public func send(_ event: InputEvent) -> Bool {
        var responder: Controller? = rootController.firstResponder
        var event = event
        if case .key(let key) = event, let first = responder {
            guard let translated = rootController.translate(key, for: first) else { return true }
            event = .key(translated)
        }
        while let current = responder {
            let handled =
                switch event {
                case .key(let key): current.handle(key)
                case .paste(let text): current.handlePaste(text)
                case .mouse(let mouse): current.handleMouse(mouse)
                }
            if handled { return true }
            responder = current.parent
        }
        return false
    }

    func quit() {
        onQuit?()
    }

    /// Makes the tree disappear and ends every controller's lifetime. Idempotent.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        rootController.beginDisappearance()
        rootController.endDisappearance()
        rootController.endLifetime()
    }
}
