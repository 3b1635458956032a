#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Why the terminal could not be used.
public struct TerminalError: Error, Sendable, CustomStringConvertible {
    /// What failed and what to do about it, e.g. that standard input is not a terminal; it
    /// includes the system's error message when a terminal call failed.
    public let description: String
}

/// The controlling terminal in full-screen mode: raw input, the alternate screen, a hidden
/// cursor, bracketed paste and (optionally) mouse reporting.
///
/// `enter()` switches modes and `restore()` puts everything back. Restoring also happens
/// when a crash signal (SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGTRAP) arrives, before the
/// signal is raised again with its default action, so a crash never leaves the shell raw.
/// Only one terminal is in full-screen mode at a time. Main actor only.
@MainActor
final class Terminal {
    let input: Int32 = 0
    let output: Int32 = 1
    private let mouse: Bool
    private var saved = termios()
    private(set) var isActive = false

    /// Checks that stdin and stdout are terminals.
    init(mouse: Bool) throws {
        guard isatty(input) == 1 else {
            throw TerminalError(
                description:
                    "standard input is not a terminal; full-screen mode needs one (run it in a terminal, without redirecting input)"
            )
        }
        guard isatty(output) == 1 else {
            throw TerminalError(
                description:
                    "standard output is not a terminal; full-screen mode needs one (run it in a terminal, without redirecting or piping output)"
            )
        }
        guard tcgetattr(input, &saved) == 0 else {
            throw TerminalError(
                description: "cannot read the terminal's settings (\(String(cString: strerror(errno))))")
        }
        self.mouse = mouse
    }

    /// The window size in cells.
    var size: Size {
        var size = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return Size(width: 80, height: 24)
        }
        return Size(width: Int(size.ws_col), height: Int(size.ws_row))
    }

    private var enterSequence: String {
        "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?7l\u{1B}[?2004h" + (mouse ? "\u{1B}[?1000h\u{1B}[?1006h" : "")
    }

    static let restoreSequence =
        "\u{1B}[?2026l\u{1B}[0m\u{1B}[?1000l\u{1B}[?1006l\u{1B}[?2004l\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l"

    /// Switches to raw mode and the alternate screen.
    func enter() throws {
        guard !isActive else { return }
        var raw = saved
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else {
            throw TerminalError(
                description: "cannot switch the terminal to raw mode (\(String(cString: strerror(errno))))")
        }
        CrashRestore.install(saved: saved, sequence: Self.restoreSequence)
        isActive = true
        write(Array(enterSequence.utf8))
    }

    /// Leaves raw mode and the alternate screen; idempotent. With `signalKeys` false, the
    /// modes are the saved ones but for `ISIG`: Ctrl-C and Ctrl-Z make no signal.
    func restore(signalKeys: Bool = true) {
        guard isActive else { return }
        isActive = false
        CrashRestore.uninstall()
        write(Array(Self.restoreSequence.utf8))
        var modes = saved
        if !signalKeys { modes.c_lflag &= ~tcflag_t(ISIG) }
        _ = tcsetattr(input, TCSAFLUSH, &modes)
    }

    /// Writes all of `bytes`, retrying short writes and interrupted calls.
    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(output, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    return
                }
                offset += written
            }
        }
    }

    /// Reads what is available (at least one byte, waiting for it); empty at end of input.
    func read(upTo count: Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: max(1, count))
        while true {
            let n = buffer.withUnsafeMutableBytes { systemRead(input, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            return n <= 0 ? [] : Array(buffer.prefix(n))
        }
    }
}

/// Restores the terminal from a crash signal handler.
///
/// The handler may only call async-signal-safe functions (`write`, `tcsetattr`, `signal`,
/// `raise`) and may not allocate, so everything it needs is copied into memory allocated
/// once, before any handler is installed, and only read afterwards.
enum CrashRestore {
    // Safety: written only by `install`, on the main actor, before the handlers that read
    // them are installed; the handlers never write them. Later installs rewrite the same
    // bytes (the same terminal settings and sequence).
    nonisolated(unsafe) private static var savedSettings = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    nonisolated(unsafe) private static var sequence = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 256)
    nonisolated(unsafe) private static var sequenceLength = 0
    nonisolated(unsafe) private static var isInstalled = false
    /// The actions in place before ours (e.g. Swift's backtracer), one per signal, which
    /// the handler puts back before raising the signal again.
    nonisolated(unsafe) private static var previous = UnsafeMutableBufferPointer<sigaction>.allocate(capacity: 32)

    static let signals: [Int32] = [SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE]

    @MainActor
    static func install(saved: termios, sequence text: String) {
        savedSettings.pointee = saved
        let bytes = Array(text.utf8.prefix(sequence.count))
        _ = sequence.initialize(from: bytes)
        sequenceLength = bytes.count
        guard !isInstalled else { return }
        isInstalled = true
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                _ = write(1, CrashRestore.sequence.baseAddress, CrashRestore.sequenceLength)
                _ = tcsetattr(0, TCSANOW, CrashRestore.savedSettings)
                sigaction(number, CrashRestore.previous.baseAddress! + Int(number), nil)
                raise(number)
            }
            action.sa_flags = 0
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, previous.baseAddress! + Int(signal))
        }
    }

    /// Puts the default actions back (the terminal was restored normally).
    @MainActor
    static func uninstall() {
        guard isInstalled else { return }
        isInstalled = false
        for number in signals { sigaction(number, previous.baseAddress! + Int(number), nil) }
    }
}

// `write(2)` and `read(2)` by their module's name: inside `Terminal`, the methods of the same
// names would be found first.
#if canImport(Glibc)
    private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        Glibc.write(descriptor, buffer, count)
    }
    private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        Glibc.read(descriptor, buffer, count)
    }
#elseif canImport(Darwin)
    private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        Darwin.write(descriptor, buffer, count)
    }
    private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        Darwin.read(descriptor, buffer, count)
    }
#endif
