import Foundation
import ShelfTestSupport
import Testing

/// The terminal kit through the example app's real binary in tmux: `terminal-demo`, built
/// beside `shelf` but not part of it.
@Suite("terminal-demo example", .serialized)
struct TerminalDemoTests {
    private var demo: String {
        ShelfProcess.executable.deletingLastPathComponent().appendingPathComponent("terminal-demo").path
    }

    /// The terminal settings printed by `stty -a` after the program ended show cooked mode.
    private func expectRestored(_ screen: [String]) {
        let settings = screen.joined(separator: " ")
        #expect(settings.contains(" icanon ") && settings.contains(" echo ") && settings.contains(" isig "))
        #expect(settings.contains(" icrnl ") && settings.contains(" ixon "))
    }

    @Test func filtersLiveAndQuitsRestoringTheTerminal() async throws {
        let tmux = try TmuxSession(demo, width: 60, height: 12)
        var screen = try await tmux.waitFor("10000 lines")
        #expect(screen[0].hasPrefix("/type / to filter"))
        #expect(screen[2].hasPrefix("Line 1: amber amber"))
        try tmux.type("/grove delta")
        screen = try await tmux.waitFor("100 lines match")
        #expect(screen[0].hasPrefix("/grove delta"))
        #expect(screen[2].hasPrefix("Line 37: grove delta"))
        try tmux.send("Escape")
        try await tmux.waitFor("10000 lines")
        try tmux.type("q")
        screen = try await tmux.waitFor("[exit 0]")
        #expect(screen.contains(line: "[exit 0]"))
        #expect(!screen.contains(line: "Line 1: amber"), "the alternate screen was left")
        expectRestored(try await tmux.waitFor("icanon"))
    }

    @Test func resizingRedrawsAtTheNewSize() async throws {
        let tmux = try TmuxSession(demo, width: 60, height: 12)
        try await tmux.waitFor("10000 lines")
        try tmux.resize(width: 40, height: 8)
        // tmux shows the old screen's bottom lines at once: wait for the redraw itself.
        let screen = try await tmux.waitFor {
            $0.count >= 8 && $0[7].hasPrefix(" 10000 lines") && $0[6].hasPrefix("Line 5: ember amber")
        }
        #expect(screen[7].count <= 40)
        #expect(screen[6].hasPrefix("Line 5: ember amber"))
    }

    @Test("signals end the run with the terminal restored", arguments: [("TERM", 143), ("SEGV", 139), ("ABRT", 134)])
    func signalRestoresTheTerminal(_ signal: String, _ status: Int) async throws {
        // Swift's backtracer, which runs after the terminal is restored, would wait for a key.
        let tmux = try TmuxSession(
            demo + " < /dev/tty & pid=$!; sleep 1.5; kill -\(signal) $pid; wait $pid", width: 60, height: 30,
            environment: ["SWIFT_BACKTRACE": "enable=no"])
        let screen = try await tmux.waitFor("icanon")
        #expect(screen.contains(line: "[exit \(status)]"))
        expectRestored(screen)
    }

    @Test func ctrlZSuspendsAndFgResumes() async throws {
        let tmux = try TmuxSession(shellWidth: 60, height: 14)
        try tmux.type(demo + "\n")
        try await tmux.waitFor("10000 lines")
        try tmux.type("jj")
        try tmux.send("C-z")
        try await tmux.waitFor("Stopped")
        try tmux.type("stty -a | tr ' ' '\\n' | grep -x icanon && fg\n")
        let screen = try await tmux.waitFor("10000 lines")
        #expect(screen.contains(line: "Line 1: amber amber"))
        try tmux.type("q")
        let after = try await tmux.waitFor { $0.last { !$0.isEmpty }?.hasPrefix("bash") == true }
        #expect(!after.contains(line: "10000 lines"), "the browser's screen is gone")
    }

    @Test func refusesWhenNotATerminal() throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let output = shelf.folder.appendingPathComponent("out").path
        let errors = shelf.folder.appendingPathComponent("err").path
        let status = try ChildProcess(demo, [], environment: [:], stdout: output, stderr: errors).wait()
        #expect(status == 1)
        #expect(try String(contentsOfFile: errors, encoding: .utf8).contains("standard input is not a terminal"))
        #expect(try String(contentsOfFile: output, encoding: .utf8).isEmpty)
    }
}
