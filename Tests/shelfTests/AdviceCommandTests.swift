import Foundation
import ShelfStore
import ShelfTestSupport
import Testing

/// Commands that messages tell a person to run: they work for the input at hand, and they are
/// quoted, so a name or an email holding `$(…)` is pasted as text and never runs.
@Suite struct AdviceCommandTests {
    let shelf: ShelfProcess

    init() throws {
        shelf = try ShelfProcess()
    }

    private func path(_ name: String) -> String { shelf.folder.appendingPathComponent(name).path }

    /// The command after "removed with: " in `message`.
    private func advice(_ message: String) -> String? {
        guard let range = message.range(of: "can be removed with: ") else { return nil }
        return String(message[range.upperBound...].prefix { $0 != "\n" })
    }

    /// Runs `command` with /bin/sh in the test's folder; its status.
    private func sh(_ command: String) throws -> Int32 {
        try ChildProcess(
            "/bin/sh", ["-c", "cd \(ShellQuoting.quoted(shelf.folder.path)) && \(command)"],
            environment: ["PATH": "/usr/bin:/bin"]
        ).wait()
    }

    @Test func theNULAdviceForAFileWithAHostileNameRunsNothingAndWorks() async throws {
        defer { shelf.cleanUp() }
        let name = path("$(touch pwned) it's.csv")
        try Data("title,user\nx\u{0}y,ann@example.com\n".utf8).write(to: URL(fileURLWithPath: name))
        let result = try await shelf.run(["import", "items", name, "--db", path("s.sqlite")])
        #expect(result.status == 1)
        let command = try #require(advice(result.error), "\(result.error)")
        #expect(command == "tr -d '\\000' < \(ShellQuoting.quoted(name)) > \(ShellQuoting.quoted(name + ".clean"))")
        #expect(try sh(command) == 0)
        #expect(!FileManager.default.fileExists(atPath: path("pwned")), "the advice ran a command")
        let cleaned = try Data(contentsOf: URL(fileURLWithPath: name + ".clean"))
        #expect(cleaned == Data("title,user\nxy,ann@example.com\n".utf8))
    }

    @Test func theNULAdviceForGzipDecompressesFirst() async throws {
        defer { shelf.cleanUp() }
        let plain = path("zeros")
        try Data("title,user\n\u{0}\u{0}\u{0},ann@example.com\n".utf8).write(to: URL(fileURLWithPath: plain))
        #expect(try sh("gzip zeros") == 0)
        let result = try await shelf.run(["import", "items", plain + ".gz", "--db", path("s.sqlite")])
        #expect(result.status == 1)
        let command = try #require(advice(result.error), "\(result.error)")
        #expect(command == "gzip -dc \(plain).gz | tr -d '\\000' > \(plain).clean", "\(result.error)")
        #expect(try sh(command) == 0)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: plain + ".clean")) == Data("title,user\n,ann@example.com\n".utf8))
    }

    @Test func aDeviceGetsNoCommandThatNeverEnds() async throws {
        defer { shelf.cleanUp() }
        let result = try await shelf.run(["import", "items", "/dev/zero", "--format", "csv", "--db", path("s.sqlite")])
        #expect(result.status == 1)
        #expect(result.error.contains("/dev/zero:1:1: a NUL byte"), "\(result.error)")
        #expect(!result.error.contains("tr -d"), "\(result.error)")
        #expect(result.error.contains("/dev/zero is not a regular file"), "\(result.error)")
    }

    @Test func anEmailInAdviceIsQuoted() async throws {
        defer { shelf.cleanUp() }
        let items = path("items.csv")
        try Data("title\nx\n".utf8).write(to: URL(fileURLWithPath: items))
        let email = "$(touch pwned)@example.com"
        let result = try await shelf.run(["import", "items", items, "--user", email, "--db", path("s.sqlite")])
        #expect(result.status == 1)
        #expect(result.error.contains("--email '$(touch pwned)@example.com')"), "\(result.error)")
        #expect(try await shelf.run(["migrate", "--db", path("s.sqlite")]).status == 0)
        let show = try await shelf.run(["users", "remove", "`id`@example.com", "--db", path("s.sqlite")])
        #expect(show.error.contains("--email '`id`@example.com'"), "\(show.error)")
    }
}
