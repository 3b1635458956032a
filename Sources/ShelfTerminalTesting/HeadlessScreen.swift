public import ShelfTerminal

/// A screen without a terminal, for tests: drive a controller tree with events and a size,
/// and read the screen back as text and styles.
///
/// ```swift
/// let screen = HeadlessScreen(rootController: controller, size: Size(width: 40, height: 10))
/// screen.send(.character("j"))
/// #expect(screen.lines == ["…", …])
/// ```
@MainActor
public final class HeadlessScreen {
    /// The window the screen drives; use it to reach the root controller or its size.
    public let window: Window
    private var canvas: Canvas
    /// Set once a controller asked the application to quit.
    public private(set) var didQuit = false

    /// Shows `rootController` at `size` in a new `Window` (its view loads and it appears at
    /// once). `rootController` must have no parent. Call `close()` at the end of a test so
    /// the controllers disappear and their lifetimes end.
    public init(rootController: Controller, size: Size) {
        window = Window(rootController: rootController, size: size)
        canvas = Canvas(size: size)
        window.onQuit = { [unowned self] in didQuit = true }
    }

    /// The current screen, redrawn if anything changed.
    public var screen: Canvas {
        if window.needsDisplay { canvas = window.draw() }
        return canvas
    }

    /// The screen's rows as text.
    public var lines: [String] { screen.lines }

    /// The whole screen as one string, rows joined by "\n", trailing spaces removed.
    public var text: String {
        lines.map { String($0.reversed().drop { $0 == " " }.reversed()) }.joined(separator: "\n")
    }

    /// Sends a key.
    @discardableResult
    public func send(_ key: KeyEvent) -> Bool { window.send(.key(key)) }

    /// Sends any input event.
    @discardableResult
    public func send(_ event: InputEvent) -> Bool { window.send(event) }

    /// Types each character of `text` as a key.
    public func type(_ text: String) {
        for character in text { window.send(.key(.character(character))) }
    }

    /// Changes the screen size, as a terminal resize does; the next read of `screen`, `lines` or
    /// `text` lays the tree out again at the new size. Nothing happens when the size is unchanged.
    public func resize(to size: Size) { window.resize(to: size) }

    /// Waits (yielding to the main actor, so property deliveries run) until `condition`
    /// holds for the screen text, or `timeout` passes. Returns whether it held. The default
    /// timeout is generous: it is reached only when something is wrong, or when a loaded
    /// machine runs a whole parallel test suite.
    @discardableResult
    public func waitUntil(timeout: Duration = .seconds(180), _ condition: (String) -> Bool) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if condition(text) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition(text)
    }

    /// Closes the window: controllers disappear and their lifetimes end.
    public func close() { window.close() }
}
