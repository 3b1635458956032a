import ShelfReactive
import ShelfTerminalTesting
import Synchronization
import Testing

@testable import ShelfTerminal

/// Records its lifecycle calls and keys into a shared log.
@MainActor
final class LoggingController: Controller {
    let name: String
    let log: Log
    var handles: Set<KeyEvent> = []

    init(_ name: String, log: Log) {
        self.name = name
        self.log = log
        super.init()
    }

    override func loadView() {
        log.entries.append("\(name).loadView")
        view = Label(name)
    }
    override func viewDidLoad() { log.entries.append("\(name).viewDidLoad") }
    override func viewWillAppear() { log.entries.append("\(name).viewWillAppear") }
    override func viewDidAppear() { log.entries.append("\(name).viewDidAppear") }
    override func viewWillDisappear() { log.entries.append("\(name).viewWillDisappear") }
    override func viewDidDisappear() { log.entries.append("\(name).viewDidDisappear") }
    override func handle(_ event: KeyEvent) -> Bool {
        log.entries.append("\(name).handle(\(event))")
        return handles.contains(event)
    }
}

/// The three steps of adding `child` to `parent`, for tests about something else.
@MainActor
func add(_ child: Controller, to parent: Controller) {
    parent.addChild(child)
    parent.view.addSubview(child.view)
    child.didMove(toParent: parent)
}

/// The three steps of removing `child` from its parent.
@MainActor
func remove(_ child: Controller) {
    child.willMove(toParent: nil)
    child.view.removeFromSuperview()
    child.removeFromParent()
}

@MainActor
final class Log {
    var entries: [String] = []
}

@MainActor
@Suite("Controller")
struct ControllerTests {
    @Test func viewLoadsLazilyOnce() {
        let log = Log()
        let controller = LoggingController("a", log: log)
        #expect(!controller.isViewLoaded)
        _ = controller.view
        _ = controller.view
        #expect(log.entries == ["a.loadView", "a.viewDidLoad"])
    }

    @Test func rootAppearsInAWindowAndDisappearsWhenItCloses() {
        let log = Log()
        let root = LoggingController("root", log: log)
        let screen = HeadlessScreen(rootController: root, size: Size(width: 10, height: 2))
        #expect(log.entries == ["root.loadView", "root.viewDidLoad", "root.viewWillAppear", "root.viewDidAppear"])
        #expect(!root.lifetime.hasEnded)
        screen.close()
        #expect(log.entries.suffix(2) == ["root.viewWillDisappear", "root.viewDidDisappear"])
        #expect(root.lifetime.hasEnded)
    }

    @Test func containmentInThreeStepsDrivesAppearance() {
        let log = Log()
        let root = LoggingController("root", log: log)
        let screen = HeadlessScreen(rootController: root, size: Size(width: 10, height: 2))
        log.entries.removeAll()
        let child = LoggingController("child", log: log)
        root.addChild(child)
        #expect(log.entries.isEmpty)
        root.view.addSubview(child.view)
        child.didMove(toParent: root)
        #expect(log.entries == ["child.loadView", "child.viewDidLoad", "child.viewWillAppear", "child.viewDidAppear"])
        #expect(child.parent === root)
        #expect(root.children.count == 1)

        log.entries.removeAll()
        child.willMove(toParent: nil)
        child.view.removeFromSuperview()
        child.removeFromParent()
        #expect(log.entries == ["child.viewWillDisappear", "child.viewDidDisappear"])
        #expect(child.parent == nil)
        #expect(root.children.isEmpty)
        #expect(child.lifetime.hasEnded)
        #expect(!root.lifetime.hasEnded)
        screen.close()
    }

    @Test func observationsEndWithTheControllersLifetime() async {
        let property = MutableProperty(0)
        let seen = Locked<[Int]>([])
        let log = Log()
        let root = LoggingController("root", log: log)
        let screen = HeadlessScreen(rootController: root, size: Size(width: 10, height: 2))
        let child = LoggingController("child", log: log)
        add(child, to: root)
        property.observe(during: child.lifetime) { value in seen.withLock { $0.append(value) } }
        property.value = 1
        remove(child)
        property.value = 2
        #expect(seen.withLock { $0 } == [0, 1])
        screen.close()
    }

    @Test func keysGoToTheFocusedControllerThenUpTheParents() {
        let log = Log()
        let root = LoggingController("root", log: log)
        let screen = HeadlessScreen(rootController: root, size: Size(width: 10, height: 2))
        let child = LoggingController("child", log: log)
        add(child, to: root)
        root.focusedChild = child
        root.handles = [.character("q")]
        child.handles = [.character("j")]
        log.entries.removeAll()
        #expect(screen.send(.character("j")))
        #expect(screen.send(.character("q")))
        #expect(!screen.send(.character("x")))
        #expect(
            log.entries == [
                "child.handle(j)", "child.handle(q)", "root.handle(q)", "child.handle(x)", "root.handle(x)",
            ])
        root.focusedChild = nil
        log.entries.removeAll()
        screen.send(.character("j"))
        #expect(log.entries == ["root.handle(j)"])
    }

    @Test func removingTheFocusedChildGivesFocusBack() {
        let log = Log()
        let root = LoggingController("root", log: log)
        let screen = HeadlessScreen(rootController: root, size: Size(width: 10, height: 2))
        let child = LoggingController("child", log: log)
        add(child, to: root)
        root.focusedChild = child
        remove(child)
        #expect(root.focusedChild == nil)
        #expect(root.firstResponder === root)
        screen.close()
    }

    @Test func quitReachesTheWindow() {
        let log = Log()
        let root = LoggingController("root", log: log)
        let screen = HeadlessScreen(rootController: root, size: Size(width: 10, height: 2))
        let child = LoggingController("child", log: log)
        add(child, to: root)
        child.quitApplication()
        #expect(screen.didQuit)
    }

    // Misuse stops the program with a message; each case runs in its own process.

    @Test func didMoveWithoutAddChildFails() async {
        await #expect(processExitsWith: .failure) {
            await MainActor.run {
                let parent = Controller()
                let child = Controller()
                parent.view.addSubview(child.view)
                child.didMove(toParent: parent)
            }
        }
    }

    @Test func didMoveBeforeAddingTheViewFails() async {
        await #expect(processExitsWith: .failure) {
            await MainActor.run {
                let parent = Controller()
                let child = Controller()
                parent.addChild(child)
                child.didMove(toParent: parent)
            }
        }
    }

    @Test func removeFromParentWithoutWillMoveFails() async {
        await #expect(processExitsWith: .failure) {
            await MainActor.run {
                let parent = Controller()
                let child = Controller()
                parent.addChild(child)
                parent.view.addSubview(child.view)
                child.didMove(toParent: parent)
                child.view.removeFromSuperview()
                child.removeFromParent()
            }
        }
    }

    @Test func addingAChildTwiceFails() async {
        await #expect(processExitsWith: .failure) {
            await MainActor.run {
                let parent = Controller()
                let other = Controller()
                let child = Controller()
                parent.addChild(child)
                other.addChild(child)
            }
        }
    }
}

/// A lock-protected value for collecting from observation callbacks.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<T>(_ body: (inout sending Value) -> sending T) -> sending T { mutex.withLock(body) }
}
