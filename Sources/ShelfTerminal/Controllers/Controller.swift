public import ShelfReactive

/// Manages a view: builds it, binds it to a view model, and handles the keys it is given.
///
/// Subclass it the way UIViewController is subclassed: take the view model in your own
/// `init(viewModel:)`, build the view in `loadView()` (called once, lazily, on first access
/// to `view`), bind in `viewDidLoad()` with observations that last for `lifetime`.
///
/// **Containment** is three strict steps. To add: `addChild(child)`, add `child.view` to a
/// view of this controller, `child.didMove(toParent: self)`. To remove:
/// `child.willMove(toParent: nil)`, `child.view.removeFromSuperview()`,
/// `child.removeFromParent()`. A step out of order stops the program with a message naming
/// the missing step. A removed controller's `lifetime` has ended; it is not added again.
///
/// **Appearance**: `viewWillAppear`/`viewDidAppear` run when the controller joins a
/// window's tree (as the root, or as a child whose parent is visible);
/// `viewWillDisappear`/`viewDidDisappear` when it leaves.
///
/// **Keys** go to the focused controller (follow `focusedChild` from the root), then up
/// through its parents until one returns true from `handle(_:)`. Main actor only.
@MainActor
open class Controller {
    private var loadedView: View?
    private let token = Lifetime.Token()
    private enum Containment { case detached, adding, attached, removing, removed }
    private var containment = Containment.detached

    /// The controllers added with `addChild(_:)` and not yet removed, in the order they were
    /// added. A child is listed from step 1 of adding until `removeFromParent()` returns.
    public private(set) var children: [Controller] = []
    /// The controller this one was added to, or nil for a root or a removed controller. Weak:
    /// a parent owns its children, never the reverse.
    public private(set) weak var parent: Controller?
    /// The child that receives keys first; nil when this controller is the focused one.
    public var focusedChild: Controller? {
        didSet {
            if let focusedChild {
                precondition(focusedChild.parent === self, "focusedChild must be a child of this controller")
            }
            if oldValue !== focusedChild { view.setNeedsDisplay() }
        }
    }
    /// True between `viewWillAppear` and `viewWillDisappear`.
    public private(set) var isAppearing = false
    weak var window: Window?

    /// Creates a detached controller. Its view is not loaded until `view` is first read, and it
    /// shows nothing until it is a window's root or is added to a visible parent.
    public init() {}

    /// Ends when the controller is removed from its parent or its window closes. Bind
    /// observations for this long.
    public var lifetime: Lifetime { token.lifetime }

    /// The controller's view, loaded on first access.
    public var view: View {
        get {
            if let loadedView { return loadedView }
            loadView()
            guard let loadedView else { preconditionFailure("\(type(of: self)).loadView() must set view") }
            viewDidLoad()
            return loadedView
        }
        set { loadedView = newValue }
    }

    /// True once `view` has been loaded (or assigned). Reading this does not load the view.
    public var isViewLoaded: Bool { loadedView != nil }

    /// Creates the view. The default makes an empty `View`; override to build your own and
    /// assign it to `view`, without calling super.
    open func loadView() { view = View() }

    /// Called once, after the view is loaded: bind the view model here.
    open func viewDidLoad() {}
    /// Called before the controller joins a visible tree, parent before children. The view is
    /// loaded. The default does nothing; overrides need not call super.
    open func viewWillAppear() {}
    /// Called after the controller and its attached children have appeared (children's
    /// `viewDidAppear` first). The default does nothing.
    open func viewDidAppear() {}
    /// Called when the controller starts leaving a visible tree (step 1 of removing, or the
    /// window closing), parent before children. `lifetime` has not ended yet.
    open func viewWillDisappear() {}
    /// Called when the controller has left the visible tree, children first; for a removed
    /// controller this is just before its `lifetime` ends. The default does nothing.
    open func viewDidDisappear() {}

    /// Handles a key; return true when handled, false to pass it to the parent.
    open func handle(_ event: KeyEvent) -> Bool { false }

    /// The key the responder chain is offered instead of `event`, or nil to drop it. The window
    /// asks the root controller once per key, before the first responder sees it, with the
    /// controller that will be offered the key first; a root that lets users rebind keys
    /// translates here, so every controller keeps matching the keys it knows. The default
    /// returns `event` unchanged.
    open func translate(_ event: KeyEvent, for responder: Controller) -> KeyEvent? { event }

    /// Handles a bracketed paste; return true when handled.
    open func handlePaste(_ text: String) -> Bool { false }
    /// Handles a mouse event; return true when handled.
    open func handleMouse(_ event: MouseEvent) -> Bool { false }

    /// Asks the application to end its run loop (nothing when not in a window).
    public func quitApplication() {
        rootController.window?.quit()
    }

    var rootController: Controller {
        var root = self
        while let parent = root.parent { root = parent }
        return root
    }

    /// The deepest focused controller at or below this one: the first to be offered a key.
    public var firstResponder: Controller {
        var current = self
        while let next = current.focusedChild { current = next }
        return current
    }

    // MARK: - Containment

    /// Step 1 of adding: records `child`. Then add its view, then call
    /// `child.didMove(toParent: self)`.
    public func addChild(_ child: Controller) {
        precondition(
            child.containment == .detached && child.parent == nil,
            child.containment == .removed
                ? "\(type(of: child)) was removed and its lifetime ended; make a new controller instead of adding it again"
                : "\(type(of: child)) already has a parent; remove it first (willMove(toParent: nil), remove its view, removeFromParent())"
        )
        precondition(child !== self && !isDescendant(of: child), "a controller cannot contain itself")
        children.append(child)
        child.parent = self
        child.containment = .adding
    }

    /// Step 3 of adding (with `parent`), or step 3 of removing when nil, which
    /// `removeFromParent()` does itself. The child appears here if its parent is visible.
    open func didMove(toParent parent: Controller?) {
        guard let parent else { return }
        precondition(
            containment == .adding && self.parent === parent,
            "\(type(of: self)).didMove(toParent:) without addChild: call parent.addChild(child) first")
        precondition(
            isViewLoaded && view.superview.map { $0.isDescendant(of: parent.view) } == true,
            "\(type(of: self)).didMove(toParent:) before its view was added: add child.view to a view of \(type(of: parent)) first"
        )
        containment = .attached
        if parent.isAppearing { beginAppearance() }
    }

    /// Step 1 of removing (with nil): the child disappears here if it was visible.
    open func willMove(toParent parent: Controller?) {
        guard parent == nil else { return }
        precondition(
            containment == .attached,
            "\(type(of: self)).willMove(toParent: nil) on a controller that is not fully added")
        containment = .removing
        if isAppearing { beginDisappearance() }
    }

    /// Step 3 of removing: forgets the parent, ends `lifetime`.
    public func removeFromParent() {
        guard let parent else { return }
        precondition(
            containment == .removing,
            "\(type(of: self)).removeFromParent() without willMove(toParent: nil): call it first, then remove the view")
        precondition(
            loadedView?.superview == nil,
            "\(type(of: self)).removeFromParent() while its view is still shown: call view.removeFromSuperview() first")
        endDisappearance()
        parent.children.removeAll { $0 === self }
        if parent.focusedChild === self { parent.focusedChild = nil }
        self.parent = nil
        containment = .removed
        endLifetime()
    }

    private func isDescendant(of controller: Controller) -> Bool {
        var current: Controller? = self
        while let candidate = current {
            if candidate === controller { return true }
            current = candidate.parent
        }
        return false
    }

    // MARK: - Appearance

    func beginAppearance() {
        guard !isAppearing else { return }
        _ = view
        isAppearing = true
        viewWillAppear()
        for child in children where child.containment == .attached { child.beginAppearance() }
        viewDidAppear()
    }

    func beginDisappearance() {
        guard isAppearing else { return }
        isAppearing = false
        viewWillDisappear()
        for child in children { child.beginDisappearance() }
        disappeared = true
    }

    /// Finishes a disappearance begun by `beginDisappearance()`.
    func endDisappearance() {
        guard disappeared else { return }
        disappeared = false
        for child in children { child.endDisappearance() }
        viewDidDisappear()
    }

    private var disappeared = false

    /// Ends the lifetime of this controller and its children (the window closed).
    func endLifetime() {
        for child in children { child.endLifetime() }
        token.end()
    }
}
