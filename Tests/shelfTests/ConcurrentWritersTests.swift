import Foundation
import ShelfTestSupport
import Testing

/// Many `shelf` processes writing one SQLite file at once: every one waits for the others'
/// locks (while opening, switching to WAL, checking migrations, writing and closing), as
/// writes do, and none fails or warns.
@Suite("Concurrent writers on one SQLite file (end to end)")
struct ConcurrentWritersTests {
    /// Starts one `shelf` per argument list at once, waits for all; their exit statuses and
    /// standard errors.
    private static func runAtOnce(_ commands: [[String]], in shelf: ShelfProcess) async throws -> [(Int32, String)] {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        let children = try commands.enumerated().map { index, arguments in
                            let error = shelf.folder.appendingPathComponent("err-\(index)-\(UUID().uuidString)").path
                            let child = try ChildProcess(
                                ShelfProcess.executable.path, arguments,
                                environment: ["PATH": "/usr/bin:/bin", "HOME": shelf.folder.path], stderr: error)
                            return (child, error)
                        }
                        return children.map { child, error in
                            let status = child.wait()
                            let text = (try? String(contentsOfFile: error, encoding: .utf8)) ?? ""
                            unlink(error)
                            return (status, text)
                        }
                    })
            }
        }
    }

    @Test(arguments: [8, 16])
    func everyWriterWaitsAndNoneWarns(_ count: Int) async throws {
        for round in 0..<3 {
            let shelf = try ShelfProcess()
            defer { shelf.cleanUp() }
            let db = shelf.databasePath
            // A new file: every process opens it while others create it and switch it to WAL.
            let users = try await Self.runAtOnce(
                (0..<count).map { ["users", "add", "--db", db, "--name", "U\($0)", "--email", "u\($0)@example.com"] },
                in: shelf)
            for (status, error) in users {
                #expect(status == 0 && error.isEmpty, "round \(round), new file: \(status) \(error)")
            }
            // The same file, existing: adds and saved views at once.
            for _ in 0..<2 {
                let items = try await Self.runAtOnce(
                    (0..<count).map {
                        ["items", "add", "--db", db, "--user", "u\($0)@example.com", "--title", "T\($0)"]
                    },
                    in: shelf)
                for (status, error) in items {
                    #expect(status == 0 && error.isEmpty, "round \(round), items add: \(status) \(error)")
                }
            }
            let views = try await Self.runAtOnce(
                (0..<count).map { ["views", "save", "V\($0)-\(round)", "--query", "T\($0)", "--db", db] }, in: shelf)
            for (status, error) in views {
                #expect(status == 0 && error.isEmpty, "round \(round), views save: \(status) \(error)")
            }
            let list = try await shelf.run(["items", "list", "--db", db])
            #expect(list.output.split(separator: "\n").count == 2 * count, "\(list.error)")
            #expect(!FileManager.default.fileExists(atPath: db + "-wal"), "the last one out merged the WAL")
        }
    }
}
