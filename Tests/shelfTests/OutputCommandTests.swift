import Foundation
import ShelfTestSupport
import Testing

/// What commands write, through the real binary: a failed write is an error, a closed pipe a
/// quiet end (an export's by SIGPIPE), no output replaces a database or an input, data never talks to the terminal,
/// and every command, however it ends, leaves no `-wal` file behind.
@Suite struct OutputCommandTests {
    let shelf: ShelfProcess

    init() throws {
        shelf = try ShelfProcess()
    }

    private func run(
        _ arguments: [String], input: String? = nil, stdout: ChildProcess.Output? = nil
    ) async throws -> ShelfProcess.Result {
        try await shelf.run(arguments + ["--db", shelf.databasePath], input: input, stdout: stdout)
    }

    private func file(_ name: String, _ text: String) throws -> String {
        let path = shelf.folder.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func seed() async throws {
        #expect(try await run(["users", "add", "--name", "Ann", "--email", "ann@example.com"]).status == 0)
        #expect(try await run(["items", "add", "--user", "ann@example.com", "--title", "Read Dune"]).status == 0)
    }

    private var walExists: Bool { FileManager.default.fileExists(atPath: shelf.databasePath + "-wal") }

    /// Every command that writes to stdout.
    static let printing: [[String]] = [
        ["items", "list"], ["items", "list", "--json"], ["items", "show", "1"], ["items", "show", "1", "--json"],
        ["users", "list"], ["users", "list", "--json"], ["export", "items"], ["export", "users", "--format", "ndjson"],
        ["items", "add", "--user", "ann@example.com", "--title", "More"],
        ["users", "add", "--name", "Bea", "--email", "bea@example.com"], ["migrate"], ["migrate", "--status"],
        ["watch", "items"], ["--help"],
    ]

    @Test(arguments: printing)
    func aFullDiskIsAnErrorOfOneLine(_ arguments: [String]) async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let result = try await run(arguments, stdout: .file("/dev/full"))
        #expect(result.status == 1, "\(arguments)")
        // An add has committed its row by then, and says so (a retry would add it twice).
        let added =
            arguments.dropFirst().first == "add"
            ? "added \(arguments[0].dropLast()) 2, but could not print its ID: " : ""
        #expect(result.error == "Error: \(added)cannot write to stdout: No space left on device\n", "\(arguments)")
        #expect(!walExists)
    }

    @Test(arguments: printing)
    func aClosedStdoutIsAnError(_ arguments: [String]) async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let result = try await run(arguments, stdout: .closed)
        #expect(result.status == 1, "\(arguments)")
        let added =
            arguments.dropFirst().first == "add"
            ? "added \(arguments[0].dropLast()) 2, but could not print its ID: " : ""
        #expect(result.error.hasPrefix("Error: \(added)cannot write to stdout: it is closed"), "\(arguments)")
        #expect(result.error.split(separator: "\n").count == 1)
        #expect(!walExists)
        // Nothing the command opened took descriptor 1: the database is intact.
        #expect(try await run(["items", "show", "1"]).output.contains("Read Dune"))
    }

    @Test(arguments: printing)
    func aClosedPipeIsAQuietEnd(_ arguments: [String]) async throws {
        defer { shelf.cleanUp() }
        try await seed()
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        close(descriptors[0])
        defer { close(descriptors[1]) }
        let result = try await run(arguments, stdout: .descriptor(descriptors[1]))
        // An export is not delivered whole, and ends as GNU tools do then: by SIGPIPE, 141
        // (`ExportCut`); the others' readers had what they asked for.
        let expected = arguments.first == "export" ? 128 + SIGPIPE : 0
        #expect(result.status == expected, "\(arguments): \(result.error)")
        #expect(result.error.isEmpty, "\(arguments)")
        #expect(!walExists)
    }

    @Test func watchEndsAsSoonAsItsReaderDoes() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        let child = try ChildProcess(
            ShelfProcess.executable.path, ["watch", "items", "--db", shelf.databasePath],
            environment: ["PATH": "/usr/bin:/bin"], output: .descriptor(descriptors[1]))
        close(descriptors[1])
        // Read the first line, then go away as `head -1` does; no change follows.
        var byte: UInt8 = 0
        while read(descriptors[0], &byte, 1) == 1, byte != UInt8(ascii: "\n") {}
        close(descriptors[0])
        let deadline = ContinuousClock.now + .seconds(20)
        while child.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!child.isRunning, "watch still runs after its reader left")
        #expect(child.wait() == 0)
        #expect(!walExists)
    }

    @Test(arguments: [SIGTERM, SIGHUP, SIGINT])
    func aSignalEndsWatchAndReleasesTheStore(_ signal: Int32) async throws {
        let status = 128 + signal
        defer { shelf.cleanUp() }
        try await seed()
        let watch = try RunningShelf(["watch", "items", "--db", shelf.databasePath])
        #expect(await watch.waitForLines(1).count == 1)
        #expect(walExists, "the store is open")
        #expect(watch.stop(signal) == status)
        #expect(!walExists)
    }

    /// The test's waits run on a thread of their own, never on the few threads every task
    /// shares (two, on a two-core machine): in a full run, other tests keep those busy with
    /// blocking calls for many seconds at a time, and a poll scheduled there came back after
    /// its deadline had passed, before it had looked once ("filled the pipe" failed in every
    /// full run, and passed alone).
    @Test(arguments: [["export", "items"], ["items", "list"], ["items", "list", "--json"]])
    func aSignalStopsACommandWhoseReaderStalls(_ arguments: [String]) async throws {
        defer { shelf.cleanUp() }
        let database = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--name", "Ann", "--email", "ann@example.com", "--db", database])
                .status == 0)
        var rows = "user,title\n"
        for index in 0..<3000 { rows += "ann@example.com,Item number \(index) with a title long enough\n" }
        let input = try file("many.csv", rows)
        #expect(try await shelf.run(["import", "items", input, "--quiet", "--db", database]).status == 0)
        let outcome = try await Self.onThread { () throws -> (queued: Int32, running: Bool, status: Int32) in
            var descriptors: [Int32] = [0, 0]
            guard pipe(&descriptors) == 0 else { return (0, false, -1) }
            defer { close(descriptors[0]) }
            let child = try ChildProcess(
                ShelfProcess.executable.path, arguments + ["--db", database],
                environment: ["PATH": "/usr/bin:/bin"], output: .descriptor(descriptors[1]))
            close(descriptors[1])
            // The reader reads nothing (a pager waiting for a key): wait until the pipe is full.
            var queued: Int32 = 0
            let filling = ContinuousClock.now + .seconds(180)
            while ioctl(descriptors[0], UInt(FIONREAD), &queued) == 0, queued < 60_000, ContinuousClock.now < filling {
                usleep(20_000)
            }
            child.signal(SIGTERM)
            let stopping = ContinuousClock.now + .seconds(120)
            while child.isRunning, ContinuousClock.now < stopping { usleep(20_000) }
            let running = child.isRunning
            return (queued, running, running ? -1 : child.wait())
        }
        #expect(outcome.queued >= 60_000, "\(arguments) filled the pipe")
        #expect(!outcome.running, "\(arguments) still runs")
        #expect(outcome.status == 143, "\(arguments)")
        #expect(!walExists)
    }

    /// Runs `body` on a thread of its own and waits for it without holding a task's thread.
    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    @Test func exportNeverReplacesTheDatabaseItsLogOrAnotherDatabase() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let other = shelf.folder.appendingPathComponent("other.sqlite").path
        #expect(try await shelf.run(["migrate", "--db", other]).status == 0)
        let link = shelf.folder.appendingPathComponent("link.csv").path
        symlink(shelf.databasePath, link)
        for target in [
            shelf.databasePath, shelf.folder.path + "/./shelf.sqlite", shelf.databasePath + "-wal", link, other,
        ] {
            let result = try await run(["export", "items", "-o", target])
            #expect(result.status == 1, "\(target)")
            #expect(result.error.hasPrefix("Error: refusing to write \(target)"), "\(target): \(result.error)")
        }
        // Appending to the database through the shell's redirection is refused too.
        let appending = open(shelf.databasePath, O_WRONLY | O_APPEND)
        defer { close(appending) }
        for arguments in [["export", "items"], ["items", "list"], ["items", "show", "1"]] {
            let redirected = try await run(arguments, stdout: .descriptor(appending))
            #expect(redirected.status == 1 && redirected.error.contains("refusing to write stdout"), "\(arguments)")
        }
        #expect(try await run(["items", "show", "1"]).output.contains("Read Dune"))
        #expect(try await shelf.run(["migrate", "--status", "--db", other]).status == 0)
    }

    @Test func aDeviceStaysADevice() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let result = try await run(["export", "items", "-o", "/dev/null"])
        #expect(result.status == 0, "\(result.error)")
        var status = stat()
        #expect(lstat("/dev/null", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR)
        // /dev/stdout is this process's stdout, written in place.
        let viaStdout = try await run(["export", "items", "-o", "/dev/stdout"])
        #expect(viaStdout.status == 0 && viaStdout.output.contains("Read Dune"))
    }

    @Test func rejectsNeverReplaceTheInputOrTheDatabase() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let text = "title,user,priority\nok,ann@example.com,1\nbad,ann@example.com,7\n"
        let input = try file("in.csv", text)
        let inputDirectory = shelf.folder.path
        for rejects in [input, inputDirectory + "/./in.csv", shelf.databasePath, shelf.databasePath + "-wal"] {
            let result = try await run(["import", "items", input, "--skip-invalid", "--rejects", rejects])
            #expect(result.status == 1, "\(rejects)")
            #expect(result.error.contains("refusing to write \(rejects)"), "\(rejects): \(result.error)")
        }
        #expect(try String(contentsOfFile: input, encoding: .utf8) == text)
        #expect(try await run(["items", "list"]).output.split(separator: "\n").count == 1, "nothing was imported")
    }

    @Test func exportOnATerminalEscapesControlCharacters() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let title = "Clip \u{1B}]52;c;aGVsbG8=\u{07} \u{1B}]2;pwned\u{07}title"
        #expect(try await run(["items", "add", "--user", "ann@example.com", "--title", title]).status == 0)
        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " export items --db " + TmuxSession.quote(shelf.databasePath), width: 120,
            height: 12)
        let screen = try await tmux.waitFor("[exit 0]")
        #expect(screen.contains(line: "Clip ␛]52;c;aGVsbG8=␇ ␛]2;pwned␇title"), "\(screen)")
        // A pipe gets the exact bytes.
        #expect(try await run(["export", "items"]).output.contains(title))
    }

    @Test(arguments: ["TERM", "HUP"])
    func aSignalEndsTheBrowserAndReleasesTheStore(_ signal: String) async throws {
        defer { shelf.cleanUp() }
        try await seed()
        // The signal goes once the browser has drawn its list, not after a fixed sleep: under
        // load (stop 16's CI) a browser still starting when the signal came could die of it before
        // its handler was in place, and leave the log behind.
        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(shelf.databasePath)
                + " < /dev/tty & pid=$!; while [ ! -e "
                + TmuxSession.quote(shelf.folder.appendingPathComponent("go").path)
                + " ]; do sleep 0.05; done; kill -\(signal) $pid; wait $pid", width: 80, height: 20)
        try await tmux.waitFor("Read Dune")
        #expect(
            FileManager.default.createFile(atPath: shelf.folder.appendingPathComponent("go").path, contents: Data()))
        let screen = try await tmux.waitFor("icanon")
        #expect(screen.contains(line: "[exit \(signal == "TERM" ? 143 : 129)]"), "\(screen)")
        #expect(!walExists)
    }

    @Test func jsonLinesCarryNoTerminalControls() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let title = "CSI \u{9B}31m red \u{202E}txet\u{7F}"
        #expect(try await run(["items", "add", "--user", "ann@example.com", "--title", title]).status == 0)
        let show = try await run(["items", "show", "2", "--json"])
        #expect(show.output.contains(#""title":"CSI \u009b31m red \u202etxet\u007f""#), "\(show.output)")
        let parsed = try JSONSerialization.jsonObject(with: Data(show.output.utf8)) as? [String: Any]
        #expect(parsed?["title"] as? String == title)
        let watch = try RunningShelf(["watch", "items", "--db", shelf.databasePath])
        let line = try #require(await watch.waitForLines(1).first)
        #expect(line.contains(#"\u009b31m"#) && !line.unicodeScalars.contains { $0.value == 0x9B })
    }

    @Test func timesAreShownExactlyAsStored() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let input = try file(
            "old.csv",
            "user,title,created_at,updated_at\nann@example.com,Old,1500-01-01T00:00:00.268Z,1500-01-01T00:00:00.268Z\n")
        #expect(try await run(["import", "items", input, "--quiet"]).status == 0)
        let show = try await run(["items", "show", "2"])
        #expect(show.output.contains("Created:   1500-01-01T00:00:00.268Z"), "\(show.output)")
        #expect(
            try await run(["items", "show", "2", "--json"]).output.contains(
                "\"created_at\":\"1500-01-01T00:00:00.268Z\""))
        #expect(try await run(["items", "list"]).output.contains("\tOld\t1500-01-01T00:00:00.268Z\n"))
    }

    @Test func everyCommandLeavesNoLogBehind() async throws {
        defer { shelf.cleanUp() }
        try await seed()
        let out = shelf.folder.appendingPathComponent("out.csv").path
        for arguments in [
            ["items", "list"], ["items", "done", "1"], ["export", "items", "-o", out], ["users", "list"],
            ["items", "show", "99"], ["import", "items", out, "--mode", "upsert"], ["items", "remove", "1"],
            ["demo", "--users", "2", "--items", "10"],
        ] {
            _ = try await run(arguments)
            #expect(!walExists, "\(arguments)")
        }
    }
}
