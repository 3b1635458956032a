import Foundation
import Testing

/// A signal that comes once a command's work is final, and one that stops it before (found by
/// a hostile tester: an import that had committed exited with 143, so a script retrying on it
/// imported every row twice; an interrupted export said nothing).
@Suite struct SignalAfterWorkTests {
    /// Whether `path` holds `text`, read again until `timeout` passes.
    func waitFor(_ text: String, in path: String, timeout: Duration = .seconds(180)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let written = try? String(contentsOfFile: path, encoding: .utf8), written.contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return false
    }

    @Test func aSignalAfterTheCommitLeavesTheExitStatusZero() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        _ = try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@example.com"])
        // Big enough that closing the store (checkpointing its WAL) takes a moment after the summary.
        let input = shelf.folder.appendingPathComponent("items.ndjson")
        let notes = String(repeating: "n", count: 2_000)
        let lines = (1...5_000).map { #"{"user":"ann@example.com","title":"t\#($0)","notes":"\#(notes)"}"# }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: input)
        let log = shelf.folder.appendingPathComponent("stderr.log").path
        let running = try RunningShelf(["import", "items", input.path, "--db", db], stderr: log)
        #expect(await waitFor("Imported 5000 rows", in: log))
        let status = running.stop(SIGTERM)
        #expect(status == 0, "the import had committed: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        let count = try await shelf.run(["items", "list", "--db", db])
        #expect(count.output.split(separator: "\n").count == 5_000)
    }

    @Test func anInterruptedExportSaysItsFileIsLeftAsItWas() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let demo = try await shelf.run(["demo", "--db", shelf.databasePath, "--items", "60000"])
        #expect(demo.status == 0, "\(demo.error)")
        let output = shelf.folder.appendingPathComponent("out.csv")
        try Data("old\n".utf8).write(to: output)
        let log = shelf.folder.appendingPathComponent("stderr.log").path
        let running = try RunningShelf(
            ["export", "items", "--db", shelf.databasePath, "-o", output.path, "--format", "json"], stderr: log)
        // Stopped once it writes: its temporary file is there.
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline,
            !((try? FileManager.default.contentsOfDirectory(atPath: shelf.folder.path)) ?? []).contains(where: {
                $0.hasPrefix(".out.csv.partial-")
            })
        {
            try await Task.sleep(for: .milliseconds(1))
        }
        let status = running.stop(SIGTERM)
        let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        // A machine fast enough to finish first leaves nothing to check.
        guard status != 0 else { return }
        #expect(status == 143)
        #expect(said.contains("Interrupted: \(output.path) was not written"), "\(said)")
        #expect(try String(contentsOf: output, encoding: .utf8) == "old\n")
    }
}
