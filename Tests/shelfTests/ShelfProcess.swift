import Foundation
import ShelfTestSupport
import Testing

/// Runs the real `shelf` binary built next to the test bundle.
struct ShelfProcess {
    struct Result {
        let status: Int32
        let output: String
        let error: String
    }

    /// The built `shelf` executable: beside the test bundle in the products folder.
    static let executable: URL = {
        var folder = Bundle.main.bundleURL
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("shelf")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return Bundle.main.bundleURL.appendingPathComponent("shelf")
    }()

    /// A fresh folder per test, removed by `cleanUp()`.
    let folder: URL

    init() throws {
        signal(SIGPIPE, SIG_IGN)  // a write to a pipe whose reader is gone is an error, not the end of the tests
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: folder)
    }

    var databasePath: String { folder.appendingPathComponent("shelf.sqlite").path }

    /// Runs `shelf arguments` with a minimal environment plus `environment`, and waits.
    /// `input` is given as stdin (through a file), else stdin is empty. Stdout goes to a file
    /// that becomes `output`, or to `stdout` when given (then `output` is empty).
    func run(
        _ arguments: [String], environment: [String: String] = [:], input: String? = nil,
        stdout: ChildProcess.Output? = nil
    ) throws -> Result {
        var base = ["PATH": "/usr/bin:/bin", "HOME": folder.appendingPathComponent("home").path]
        base.merge(environment) { $1 }
        let files = folder.appendingPathComponent("run-\(UUID().uuidString)").path
        var stdin = "/dev/null"
        if let input {
            stdin = files + ".in"
            try Data(input.utf8).write(to: URL(fileURLWithPath: stdin))
        }
        defer { for suffix in [".in", ".out", ".err"] { unlink(files + suffix) } }
        let status = try ChildProcess(
            Self.executable.path, arguments, environment: base, stdin: stdin, output: stdout ?? .file(files + ".out"),
            stderr: files + ".err"
        ).wait()
        return Result(
            status: status,
            output: (try? String(contentsOfFile: files + ".out", encoding: .utf8)) ?? "",
            error: (try? String(contentsOfFile: files + ".err", encoding: .utf8)) ?? "")
    }

    /// `run(_:environment:input:stdout:)` for async tests: the child is waited for on a thread
    /// of its own, so a test never holds one of the few threads that every task runs on (two,
    /// on a two-core machine) while a child process works.
    func run(
        _ arguments: [String], environment: [String: String] = [:], input: String? = nil,
        stdout: ChildProcess.Output? = nil
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Swift.Result {
                        let result: Result = try run(arguments, environment: environment, input: input, stdout: stdout)
                        return result
                    })
            }
        }
    }
}

extension ShelfProcess {
    /// Adds the user Ada Lovelace (ada@example.com) and one item of hers per title, through
    /// the binary, to the store at `databasePath`.
    func addAda(titles: [String]) async throws {
        let db = databasePath
        #expect(
            try await run(["users", "add", "--db", db, "--name", "Ada Lovelace", "--email", "ada@example.com"]).status
                == 0)
        for title in titles {
            #expect(
                try await run(["items", "add", "--db", db, "--user", "ada@example.com", "--title", title]).status == 0)
        }
    }
}
