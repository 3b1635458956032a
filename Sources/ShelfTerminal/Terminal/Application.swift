internal import Dispatch

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Runs a controller tree full-screen in the terminal until it quits.
///
/// Input, resizes and redraw requests all arrive on the main actor. Each batch of input
/// bytes is decoded and dispatched, then at most one frame is drawn; redraws asked for by
/// property changes are coalesced to one per frame interval. Ctrl-Z (or SIGTSTP) suspends:
/// the terminal is restored, and re-entered and redrawn on resume. SIGWINCH re-lays out.
/// SIGINT, SIGTERM and SIGHUP end the run with the terminal restored. A controller runs
/// another program on the terminal with `Application.runOutsideScreen(_:)`, which leaves and
/// re-enters full-screen mode the same way. Main actor only.
@MainActor
public final class Application {
    /// Why `run()` returned.
    public enum Ending: Equatable, Sendable {
        /// A controller called `quitApplication()`.
        case quit
        /// A signal ended the run (SIGINT, SIGTERM, SIGHUP); exit with 128 + the number.
        case signal(Int32)
        /// The terminal's input ended (it was closed).
        case inputClosed
    }

    private let rootController: Controller
    private let mouse: Bool
    private let environment: [String: String]
    /// Shortest time between frames drawn for property changes.
    public var frameInterval: Duration = .milliseconds(8)
    /// How long a lone Escape waits for the rest of a sequence.
    public var escapeTimeout: Duration = .milliseconds(25)

    private var terminal: Terminal?
    private var window: Window?
    private var renderer: Renderer
    private var decoder = KeyDecoder()
    private var sources: [any DispatchSourceProtocol] = []
    private var continuation: CheckedContinuation<Ending, Never>?
    private var renderScheduled = false
    private var lastRender = ContinuousClock.now - .seconds(1)
    private var animationScheduled = false
    private var escapeGeneration = 0

    /// Prepares to run `rootController`. `environment` decides colours (`NO_COLOR`,
    /// `COLORTERM`, `TERM`); `mouse` turns on mouse reporting.
    public init(rootController: Controller, environment: [String: String], mouse: Bool = true) {
        self.rootController = rootController
        self.mouse = mouse
        self.environment = environment
        renderer = Renderer(colorMode: .detect(environment: environment))
    }

    /// Enters full-screen mode, runs until the tree quits or a signal ends it, restores the
    /// terminal and closes the window (controllers' lifetimes end).
    ///
    /// - Throws: `TerminalError` when stdin or stdout is not a terminal, before anything
    ///   on the screen changes.
    public func run() async throws -> Ending {
        let terminal = try Terminal(mouse: mouse)
        try terminal.enter()
        self.terminal = terminal
        let window = Window(rootController: rootController, size: terminal.size)
        self.window = window
        window.onNeedsDisplay = { [unowned self] in scheduleRender() }
        window.onQuit = { [unowned self] in finish(.quit) }
        Self.running = self
        defer { Self.running = nil }
        installSources()
        render()
        let ending = await withCheckedContinuation { self.continuation = $0 }
        for source in sources { source.cancel() }
        sources.removeAll()
        window.close()
        terminal.restore()
        for number in [SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGCONT, SIGWINCH] { signal(number, SIG_DFL) }
        return ending
    }

    /// The application whose `run()` is running, if any.
    private static weak var running: Application?

    /// Runs `body` with the terminal as the shell left it, then comes back: the running
    /// application leaves raw mode and the alternate screen (showing the cursor, turning the
    /// mouse off), runs `body`, then enters full-screen mode again, lays out for the terminal's
    /// size (it may have changed) and redraws every cell. For running another full-screen
    /// program in the foreground, e.g. `ForegroundProcess.run(["vi", path])`, as Ctrl-Z does
    /// for a shell.
    ///
    /// `body` runs synchronously on the main actor: meanwhile no input is read, no frame is
    /// drawn, and property changes wait (they are drawn on return). The screen comes back when
    /// `body` throws, too. When no application is running (a `HeadlessScreen` in tests),
    /// `body` simply runs.
    public static func runOutsideScreen<T>(_ body: () throws -> T) rethrows -> T {
        guard let application = running, let terminal = application.terminal, terminal.isActive else {
            return try body()
        }
        // The modes the shell left, but Ctrl-C and Ctrl-Z stay plain bytes until a program
        // run in the foreground takes the terminal (`ForegroundProcess` turns them on for it):
        // typed in between, they would signal this application and end it.
        terminal.restore(signalKeys: false)
        defer { application.resume() }
        return try body()
    }

    private func finish(_ ending: Ending) {
        continuation?.resume(returning: ending)
        continuation = nil
    }

    // MARK: - Sources

    private func installSources() {
        guard let terminal else { return }
        let read = DispatchSource.makeReadSource(fileDescriptor: terminal.input, queue: .main)
        read.setEventHandler { [unowned self] in
            MainActor.assumeIsolated {
                let available = Int(read.data)
                let bytes = terminal.read(upTo: max(1, min(available, 65_536)))
                if bytes.isEmpty {
                    finish(.inputClosed)
                    return
                }
                handle(decoder.feed(bytes))
                if decoder.isWaiting { scheduleEscapeFlush() }
            }
        }
        read.resume()
        sources.append(read)

        for number in [SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGCONT, SIGWINCH] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler { [unowned self] in
                MainActor.assumeIsolated { handleSignal(number) }
            }
            source.resume()
            sources.append(source)
        }
    }

    private func handleSignal(_ number: Int32) {
        switch number {
        case SIGWINCH:
            resize()
        case SIGTSTP:
            suspend()
        case SIGCONT:
            // Continued after a stop we did not make ourselves: the shell may have reset modes.
            resume()
        default:
            finish(.signal(number))
        }
    }

    private func handle(_ events: [InputEvent]) {
        guard let window else { return }
        for event in events {
            if case .key(let key) = event, key == .control("z") {
                suspend()
                continue
            }
            window.send(event)
        }
        render()
    }

    private func scheduleEscapeFlush() {
        escapeGeneration += 1
        let generation = escapeGeneration
        DispatchQueue.main.asyncAfter(deadline: .now() + escapeTimeout.timeInterval) { [weak self] in
            MainActor.assumeIsolated {
                guard let self, generation == self.escapeGeneration, self.decoder.isWaiting else { return }
                self.handle(self.decoder.flush())
            }
        }
    }

    // MARK: - Suspend, resume, resize

    private func suspend() {
        guard let terminal else { return }
        terminal.restore()
        signal(SIGTSTP, SIG_DFL)
        // The stop must happen before SIGTSTP is ignored again. The main actor may run on a
        // thread that blocks SIGTSTP (a dispatch worker serving the main queue): kill() to the
        // process then hands the signal to another thread and returns at once, and the stop
        // came after the line below had ignored it (a Ctrl-Z typed after answering a question
        // was lost). Unblocked in this thread and raised at it, the signal stops the process
        // before raise() returns.
        var stop = sigset_t()
        var previous = sigset_t()
        sigemptyset(&stop)
        sigaddset(&stop, SIGTSTP)
        pthread_sigmask(SIG_UNBLOCK, &stop, &previous)
        raise(SIGTSTP)
        // Execution continues here after SIGCONT.
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        signal(SIGTSTP, SIG_IGN)
        resume()
    }

    private func resume() {
        guard let terminal else { return }
        try? terminal.enter()
        resize()
        renderer.invalidate()
        render(force: true)
    }

    private func resize() {
        guard let terminal, let window else { return }
        let size = terminal.size
        if size != window.size {
            renderer.invalidate()
            window.resize(to: size)
        }
        render()
    }

    // MARK: - Rendering

    /// Draws soon: at once when the last frame is older than the frame interval, else when
    /// the interval has passed, so a burst of changes costs one frame and a lone change waits
    /// for nothing.
    private func scheduleRender() {
        guard !renderScheduled else { return }
        renderScheduled = true
        let wait = max(.zero, frameInterval - (ContinuousClock.now - lastRender))
        DispatchQueue.main.asyncAfter(deadline: .now() + wait.timeInterval) { [weak self] in
            MainActor.assumeIsolated { self?.render() }
        }
    }

    /// Draws the tree and writes what changed on the screen. Nothing is laid out, drawn or
    /// written unless a view asked for display or the size changed (a key that changes
    /// nothing costs nothing, and a render scheduled by changes that a render made on the
    /// way already showed is a no-op); `force` draws anyway, for a screen to repaint whole.
    private func render(force: Bool = false) {
        renderScheduled = false
        guard let window, let terminal, terminal.isActive else { return }
        guard let canvas = force ? window.draw() : window.drawIfNeeded() else { return }
        let bytes = renderer.render(canvas)
        if !bytes.isEmpty { terminal.write(bytes) }
        lastRender = ContinuousClock.now
        if window.isAnimating, !animationScheduled {
            animationScheduled = true
            DispatchQueue.main.asyncAfter(deadline: .now() + 0.1) { [weak self] in
                MainActor.assumeIsolated {
                    guard let self, let window = self.window else { return }
                    self.animationScheduled = false
                    window.tick += 1
                    window.setNeedsDisplay()
                    self.render()
                }
            }
        }
    }
}

extension Duration {
    var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
