#if Server
    import AsyncHTTPClient
    import Foundation
    import NIOCore
    import NIOHTTP1
    import ShelfTestSupport

    /// A real `shelf serve` on a fresh SQLite file in a folder of its own, on a free port, with
    /// an HTTP client for it. `stop()` ends both.
    final class ServedShelf: @unchecked Sendable {
        // @unchecked: every stored property is a `let` of Sendable or thread-safe types except
        // `child`, a ChildProcess (not thread-safe), which is only used under `childLock`.
        let folder: TemporaryFolder
        private let child: ChildProcess
        private let childLock = NSLock()
        let base: String
        let client: HTTPClient
        let outputPath: String
        let errorPath: String
        /// The server's process ID.
        let pid: pid_t

        /// True until the server has exited.
        var isRunning: Bool { childLock.withLock { child.isRunning } }

        /// Sends `number` to the server.
        func deliver(_ number: Int32) { childLock.withLock { child.signal(number) } }

        /// The server's exit status, once it has exited (see `isRunning`).
        func exitStatus() -> Int32 { childLock.withLock { child.wait() } }

        /// The database served: a SQLite file in the server's folder, or the location given.
        let location: String
        var databasePath: String { location }

        /// The built `shelf` executable: beside the test bundle.
        static let executable: String = {
            var folder = Bundle.main.bundleURL
            for _ in 0..<3 {
                let candidate = folder.appendingPathComponent("shelf")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
                folder.deleteLastPathComponent()
            }
            return Bundle.main.bundleURL.appendingPathComponent("shelf").path
        }()

        /// Creates the database with one user (ann@example.com), then starts the server with
        /// `arguments` added, and waits for its `listening on` line.
        init(
            arguments: [String] = [], location: String? = nil, seedUser: Bool = true,
            prepare: (ServedShelfCLI) throws -> Void = { _ in }
        ) async throws {
            signal(SIGPIPE, SIG_IGN)
            self.folder = try TemporaryFolder()
            let database = location ?? self.folder.path("shelf.sqlite")
            self.location = database
            let cli = ServedShelfCLI(databasePath: database, folder: self.folder)
            if seedUser {
                let added = try cli.run(["users", "add", "--name", "Ann", "--email", "ann@example.com"])
                guard added.status == 0 else { throw ShellError(message: "users add failed: \(added.error)") }
            }
            try prepare(cli)
            let output = self.folder.path("serve-\(UUID().uuidString).out")
            let errors = self.folder.path("serve-\(UUID().uuidString).err")
            outputPath = output
            errorPath = errors
            child = try ChildProcess(
                Self.executable, ["serve", "--db", database, "--port", "0"] + arguments,
                environment: ["PATH": "/usr/bin:/bin", "HOME": self.folder.path("home")], stdout: output,
                stderr: errors)
            let pid = child.pid
            self.pid = pid
            let line = await Self.poll { () -> String? in
                let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                if let line = text.split(separator: "\n").first, text.hasSuffix("\n") { return String(line) }
                return kill(pid, 0) == 0 ? nil : ""
            }
            guard let line, line.hasPrefix("listening on http://") else {
                let error = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
                throw ShellError(message: "shelf serve did not start: '\(line ?? "(nothing)")', stderr: \(error)")
            }
            base = String(line.dropFirst("listening on ".count))
            // Idle pooled connections are dropped after 2 s, well before the server closes them
            // (its header timeout, 10 s by default): a request sent on a connection the server was
            // closing that moment failed with "I/O on closed channel" when a test paused over 10 s
            // between requests (a full run beside other builds).
            var configuration = HTTPClient.Configuration()
            configuration.connectionPool = .init(idleTimeout: .seconds(2))
            client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        }

        /// Polls `probe` on a thread of its own (the test process's task threads may all be busy
        /// under a full run) every 20 ms until it returns a value, for at most 60 s.
        static func poll<T: Sendable>(_ probe: @escaping @Sendable () -> T?) async -> T? {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    let deadline = ContinuousClock.now + .seconds(180)
                    while ContinuousClock.now < deadline {
                        if let value = probe() {
                            continuation.resume(returning: value)
                            return
                        }
                        usleep(20_000)
                    }
                    continuation.resume(returning: nil)
                }
            }
        }

        /// The server's standard error so far (its access log).
        var standardError: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

        /// Ends the client, the server (SIGTERM) and the folder.
        func stop() async throws {
            try await client.shutdown()
            if isRunning {
                deliver(SIGTERM)
                // A server that does not end on SIGTERM is killed, not left behind the run.
                if await Self.poll({ [self] in isRunning ? nil : true }) == nil { deliver(SIGKILL) }
            }
            folder.remove()
        }

        struct Reply {
            let status: Int
            let headers: HTTPHeaders
            let body: String
            var json: [String: Any] {
                (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
            }
            var detail: String { json["detail"] as? String ?? "" }
            subscript(header: String) -> String? { headers.first(name: header) }
        }

        /// Sends one request and reads the whole reply.
        func send(
            _ method: HTTPMethod, _ path: String, json: String? = nil, body: [UInt8]? = nil,
            headers: [(String, String)] = []
        ) async throws -> Reply {
            var request = HTTPClientRequest(url: base + path)
            request.method = method
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            if let json {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: json))
            } else if let body {
                request.body = .bytes(ByteBuffer(bytes: body))
            }
            let response = try await client.execute(request, timeout: .seconds(180))
            let bytes = try await response.body.collect(upTo: 64 << 20)
            return Reply(
                status: Int(response.status.code), headers: response.headers, body: String(buffer: bytes))
        }

        func get(_ path: String, headers: [(String, String)] = []) async throws -> Reply {
            try await send(.GET, path, headers: headers)
        }
    }

    /// The `shelf` command line on the served database.
    struct ServedShelfCLI: Sendable {
        let databasePath: String
        let folder: TemporaryFolder

        struct Result {
            let status: Int32
            let output: String
            let error: String
        }

        /// Runs `shelf arguments --db DATABASE` and waits (on a thread of its own).
        func run(_ arguments: [String]) throws -> Result {
            let files = folder.path("cli-\(UUID().uuidString)")
            defer { for suffix in [".out", ".err"] { unlink(files + suffix) } }
            var withDatabase = arguments
            let end = withDatabase.firstIndex(of: "--") ?? withDatabase.endIndex
            withDatabase.insert(contentsOf: ["--db", databasePath], at: end)
            let status = try ChildProcess(
                ServedShelf.executable, withDatabase,
                environment: ["PATH": "/usr/bin:/bin", "HOME": folder.path("home")], stdout: files + ".out",
                stderr: files + ".err"
            ).wait()
            return Result(
                status: status, output: (try? String(contentsOfFile: files + ".out", encoding: .utf8)) ?? "",
                error: (try? String(contentsOfFile: files + ".err", encoding: .utf8)) ?? "")
        }

        func runAsync(_ arguments: [String]) async throws -> Result {
            try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(with: Swift.Result { try run(arguments) })
                }
            }
        }
    }
#endif

#if Server
    /// `ChildProcess.sqlite3`, under a name the extension above can call from a thread.
    enum ChildProcessRunner {
        static func sqlite3(_ database: String, _ sql: String) throws -> Int32 {
            try ChildProcess.sqlite3(database, sql)
        }
    }
#endif

#if Server
    extension ServedShelf {
        /// Starts a server, runs `body` with it, and stops it whatever `body` does.
        static func with(
            arguments: [String] = [], location: String? = nil, seedUser: Bool = true,
            prepare: (ServedShelfCLI) throws -> Void = { _ in }, _ body: (ServedShelf) async throws -> Void
        ) async throws {
            let served = try await ServedShelf(
                arguments: arguments, location: location, seedUser: seedUser, prepare: prepare)
            do {
                try await body(served)
            } catch {
                try await served.stop()
                throw error
            }
            try await served.stop()
        }
    }
#endif

#if Server
    extension ServedShelf {
        /// `curl` with `arguments` on `path`, which it sends exactly as given: the status and the body.
        func curl(_ path: String, _ arguments: [String] = []) async throws -> (status: Int, body: String) {
            let body = folder.path("curl-\(UUID().uuidString)")
            let status = folder.path("curl-\(UUID().uuidString).status")
            defer {
                unlink(body)
                unlink(status)
            }
            let url = base + path
            let exit = try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(
                        with: Result {
                            try ChildProcess(
                                "/usr/bin/curl",
                                ["-s", "--globoff", "-o", body, "-w", "%{http_code}"] + arguments + [url],
                                environment: ["PATH": "/usr/bin:/bin"], stdout: status
                            ).wait()
                        })
                }
            }
            guard exit == 0 else { throw ShellError(message: "curl \(url) exited with \(exit)") }
            return (
                Int((try? String(contentsOfFile: status, encoding: .utf8)) ?? "") ?? 0,
                (try? String(contentsOfFile: body, encoding: .utf8)) ?? ""
            )
        }
    }
#endif
