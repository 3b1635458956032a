import Foundation
import ShelfStore
import ShelfTestSupport

/// A private tmux server running one command in a window of a fixed size, for driving the
/// full-screen programs through a real terminal.
///
/// Each session has its own server socket, so tests run in parallel without meeting.
final class TmuxSession {
    let socket = "shelf-test-\(UUID().uuidString.prefix(8))"

    /// Starts `command` (a shell command line) in a `width`×`height` window. The window
    /// stays open after the command ends, so its last screen can be read.
    init(_ command: String, width: Int = 120, height: Int = 40, environment: [String: String] = [:]) throws {
        let exports = environment.sorted { $0.key < $1.key }.map { "export \($0.key)=\(Self.quote($0.value)); " }
            .joined()
        try tmux([
            "new-session", "-d", "-x", String(width), "-y", String(height),
            "bash --norc --noprofile -c \(Self.quote(exports + command + "; " + Self.afterwards))",
        ])
    }

    /// Starts an interactive shell, for tests that type commands (job control, `fg`).
    init(shellWidth width: Int = 120, height: Int = 40) throws {
        try tmux(["new-session", "-d", "-x", String(width), "-y", String(height), "bash --norc --noprofile -i"])
    }

    deinit {
        // kill-session, not kill-server: this tmux answers kill-server and keeps running.
        // With its only session gone, the server exits.
        _ = try? tmux(["kill-session", "-t", "0"])
    }

    /// Run after the command: one short line with the terminal modes that matter (as
    /// `stty -a` names them, "-icanon" when off), then the exit status. Short, so that the
    /// status never scrolls off a small window.
    static let afterwards =
        "status=$?; echo \"modes: $(stty -a | tr ' ;' '\\n\\n' | grep -xE -- '-?(icanon|echo|isig|icrnl|ixon)' | tr '\\n' ' ')\"; "
        + "echo \"[exit $status]\"; sleep 600"

    /// `text` as one shell word (the store's one quoting rule).
    static func quote(_ text: String) -> String {
        ShellQuoting.quoted(text)
    }

    /// Sends tmux key names or literal strings (`send-keys` syntax).
    func send(_ keys: String...) throws {
        try tmux(["send-keys", "-t", "0"] + keys)
    }

    /// Types `text` literally.
    func type(_ text: String) throws {
        try tmux(["send-keys", "-t", "0", "-l", text])
    }

    /// Appends every byte the window's program writes to the terminal, from now on, to `path`
    /// (`pipe-pane`): what was drawn and then cleared, which `capture()` no longer shows.
    func record(to path: String) throws {
        try tmux(["pipe-pane", "-t", "0", "-o", "cat >> " + Self.quote(path)])
    }

    /// The screen as lines.
    func capture() throws -> [String] {
        try tmux(["capture-pane", "-p", "-t", "0"]).components(separatedBy: "\n")
    }

    /// The screen with escape sequences for styles (`capture-pane -e`).
    func captureStyled() throws -> String {
        try tmux(["capture-pane", "-p", "-e", "-t", "0"])
    }

    func resize(width: Int, height: Int) throws {
        try tmux(["resize-window", "-t", "0", "-x", String(width), "-y", String(height)])
    }

    /// Waits until the screen satisfies `condition`; returns the last screen either way.
    ///
    /// Polls on a thread of its own: each look runs the tmux client and waits for it, which
    /// on the cooperative pool (two threads on a two-core machine) would starve every other
    /// test's tasks while a tmux test waits (the browser screen tests saw their detail pane
    /// stay "Loading…" for 40 s in a full run).
    @discardableResult
    func waitFor(timeout: Duration = .seconds(60), _ condition: @escaping @Sendable ([String]) -> Bool) async throws
        -> [String]
    {
        let socket = self.socket
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        let deadline = ContinuousClock.now + timeout
                        var screen = try Self.capture(socket: socket)
                        while ContinuousClock.now < deadline {
                            if condition(screen) { return try Self.settled(screen, socket: socket, condition) }
                            Thread.sleep(forTimeInterval: 0.02)
                            screen = try Self.capture(socket: socket)
                        }
                        return screen
                    })
            }
        }
    }

    /// The screen once drawing has paused: a frame larger than the terminal's input buffer
    /// reaches tmux in pieces, and a capture between them holds the new frame's first lines
    /// over the old one's rest (stop 14's CI, load ~15, read a dialog's top border drawn and
    /// its hint line not yet). Looks again until two looks 30 ms apart agree, for at most
    /// 300 ms; a screen that has moved on to no longer satisfy `condition` (a passing message)
    /// gives the last one that did.
    private static func settled(
        _ screen: [String], socket: String, _ condition: ([String]) -> Bool
    ) throws -> [String] {
        var last = screen
        for _ in 0..<10 {
            Thread.sleep(forTimeInterval: 0.03)
            let next = try capture(socket: socket)
            if next == last { return next }
            guard condition(next) else { return last }
            last = next
        }
        return last
    }

    /// Waits until `text` appears anywhere on the screen.
    @discardableResult
    func waitFor(_ text: String, timeout: Duration = .seconds(60)) async throws -> [String] {
        try await waitFor(timeout: timeout) { $0.contains { $0.contains(text) } }
    }

    private static func capture(socket: String) throws -> [String] {
        try tmux(socket: socket, ["capture-pane", "-p", "-t", "0"]).components(separatedBy: "\n")
    }

    /// Runs tmux and returns what it printed. Nothing else of this process reaches tmux: the
    /// server it starts outlives the call and would keep open whatever it inherited.
    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        try Self.tmux(socket: socket, arguments)
    }

    /// Runs tmux on the server at `socket` and returns what it printed.
    @discardableResult
    private static func tmux(socket: String, _ arguments: [String]) throws -> String {
        let outputPath = NSTemporaryDirectory() + "\(socket)-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        try ChildProcess(
            "/usr/bin/tmux", ["-L", socket, "-f", "/dev/null"] + arguments,
            environment: ["PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "HOME": NSTemporaryDirectory()],
            stdout: outputPath
        ).wait()
        return (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }
}

extension [String] {
    /// True when some line contains `text`.
    func contains(line text: String) -> Bool { contains { $0.contains(text) } }
}
