import Foundation

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

    static func quote(_ text: String) -> String {
        "'" + text.replacing("'", with: "'\\''") + "'"
    }

    /// Sends tmux key names or literal strings (`send-keys` syntax).
    func send(_ keys: String...) throws {
        try tmux(["send-keys", "-t", "0"] + keys)
    }

    /// Types `text` literally.
    func type(_ text: String) throws {
        try tmux(["send-keys", "-t", "0", "-l", text])
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
    @discardableResult
    func waitFor(timeout: Duration = .seconds(10), _ condition: ([String]) -> Bool) async throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        var screen = try capture()
        while ContinuousClock.now < deadline {
            if condition(screen) { return screen }
            try await Task.sleep(for: .milliseconds(20))
            screen = try capture()
        }
        return screen
    }

    /// Waits until `text` appears anywhere on the screen.
    @discardableResult
    func waitFor(_ text: String, timeout: Duration = .seconds(10)) async throws -> [String] {
        try await waitFor(timeout: timeout) { $0.contains { $0.contains(text) } }
    }

    /// Runs tmux and returns what it printed. Spawned with posix_spawn and waited for with
    /// waitpid, not with Foundation's `Process`: on Linux `Process` learns that a child ended
    /// when a descriptor the child inherited closes, and the tmux server that `new-session`
    /// leaves running keeps that descriptor open forever.
    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        let outputPath = NSTemporaryDirectory() + "\(socket)-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Nothing else of this process reaches tmux. The server it starts outlives the call,
        // and would keep open whatever it inherited: a pipe or socket that Foundation's
        // `Process` is using at that moment for another test's child, whose end that test then
        // waits for until the server goes away (ten minutes, seen here).
        for descriptor in Self.openDescriptors() where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        let argv = ["/usr/bin/tmux", "-L", socket, "-f", "/dev/null"] + arguments
        let environment = ["PATH=/usr/bin:/bin", "TERM=xterm-256color", "HOME=" + NSTemporaryDirectory()]
        var cArguments = argv.map { strdup($0) } + [nil]
        var cEnvironment = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cEnvironment { free(pointer) }
        }
        var pid = pid_t()
        let status = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, &cEnvironment)
        guard status == 0 else { throw CocoaError(.executableLoad) }
        var exitStatus: Int32 = 0
        while waitpid(pid, &exitStatus, 0) < 0, errno == EINTR {}
        return (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }
}

extension TmuxSession {
    /// The descriptors open in this process now.
    static func openDescriptors() -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { Int32($0) }.filter { fcntl($0, F_GETFD) != -1 }
    }
}

extension [String] {
    /// True when some line contains `text`.
    func contains(line text: String) -> Bool { contains { $0.contains(text) } }
}
