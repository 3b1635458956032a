import Foundation
import ShelfTestSupport
import Testing

/// Ctrl-Z in the browser, through the real binary in a shell in tmux.
@Suite("shelf browse: Ctrl-Z", .serialized)
struct BrowseSuspendTests {
    /// Answering a confirmation runs the answer's work on the main actor, which on Linux may be
    /// served by a thread that blocks SIGTSTP: the stop then reached the process after the
    /// browser had ignored SIGTSTP again, and the Ctrl-Z was lost (issue 26).
    @Test func ctrlZAfterAnsweringAConfirmationSuspendsEveryTime() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        let added = try await shelf.run(["users", "add", "--db", db, "--name", "Ada", "--email", "ada@example.com"])
        #expect(added.status == 0)
        for n in 1...8 {
            let item = try await shelf.run(
                ["items", "add", "--db", db, "--user", "ada@example.com", "--title", "Task \(n)"])
            #expect(item.status == 0)
        }
        let tmux = try TmuxSession(shellWidth: 90, height: 16)
        try tmux.type("clear; " + ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(db) + "\n")
        for round in 0..<8 {
            try await tmux.waitFor { $0.contains(line: "items ·") || $0.contains(line: "item ·") }
            try tmux.type("d")
            try await tmux.waitFor("Delete item")
            // Answered, then Ctrl-Z at once, as a person types.
            try tmux.send(round % 3 == 0 ? "y" : "n", "C-z")
            let screen = try await tmux.waitFor { screen in
                screen.contains(line: "Stopped") && screen.last { !$0.isEmpty }?.hasPrefix("bash") == true
            }
            #expect(
                screen.contains(line: "Stopped"), "round \(round): Ctrl-Z was lost:\n\(screen.joined(separator: "\n"))")
            guard screen.contains(line: "Stopped") else { return }
            try tmux.type("clear; fg\n")
        }
        try await tmux.waitFor("items ·")
        try tmux.type("q")
        try await tmux.waitFor { $0.last { !$0.isEmpty }?.hasPrefix("bash") == true }
    }
}
