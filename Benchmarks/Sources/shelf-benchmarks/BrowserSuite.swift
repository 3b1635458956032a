import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `browser.first_frame`, key-to-frame while scrolling and searching, and peak memory: the
/// real `shelf` binary on a pseudo-terminal over the 1,000,000-item store, against a
/// `sqlite3` process running the same first-page query.
struct BrowserSuite {
    let items: Int
    let runs: Int
    let report: Report
    let shelfPath: String

    func run() async throws {
        let path = try await PresentationSuite(items: items, runs: 0, report: report, only: nil).cachedDatabase()
        report.header()
        var firstFrames: [Double] = []
        var firstPaints: [Double] = []
        var baseline: [Double] = []
        var scrolling: [Double] = []
        var searching: [Double] = []
        var peaks: [Double] = []
        let firstPage =
            "SELECT id, user_id, title, notes, status, priority, created_at, updated_at, version FROM items "
            + "ORDER BY created_at DESC, id DESC LIMIT 200; SELECT row_count FROM shelf_changes WHERE table_name = 'items';"
        for run in 0..<runs {
            for side in run % 2 == 0 ? [0, 1] : [1, 0] {
                if side == 1 {
                    baseline.append(try time { try runSQLite(path, firstPage) })
                    continue
                }
                let session = try PseudoTerminal(command: [shelfPath, "browse", "--db", path], width: 120, height: 40)
                let started = ContinuousClock.now
                try session.waitForFrame(containing: "")  // any frame: the screen is up
                firstPaints.append((ContinuousClock.now - started).seconds)
                // The list (its header included) is drawn in the same frame as its rows; the
                // renderer skips unchanged cells, so look for one word, not a phrase.
                try session.waitForFrame(containing: "Updated")
                firstFrames.append((ContinuousClock.now - started).seconds)
                // Scrolling: j and PgDn, each timed to the frame it produces.
                for key in Array(repeating: "j", count: 60) + Array(repeating: "\u{1B}[6~", count: 20) {
                    scrolling.append(try session.timeToNextFrame(after: key))
                }
                // Searching: the frame showing each typed letter (results follow later).
                searching.append(try session.timeToNextFrame(after: "/"))
                for letter in "river gard" {
                    searching.append(try session.timeToNextFrame(after: String(letter)))
                }
                try await Task.sleep(for: .seconds(2))  // the search results arrive
                peaks.append(Double(session.peakResidentKilobytes()) / 1024)
                // Esc leaves the search field; a key sent within the Escape timeout would read
                // as Alt plus that key.
                session.write("\u{1B}")
                try await Task.sleep(for: .milliseconds(200))
                session.write("q")
                session.waitForExit()
            }
        }
        report.compare(
            "browser.first_frame", unit: "ms", shelf: firstFrames.map { $0 * 1000 },
            against: [("sqlite3 first page", baseline.map { $0 * 1000 }, "ratio ≤ 2.0")])
        report.print(
            Figure(
                name: "browser.first_paint", unit: "ms", value: median(firstPaints) * 1000,
                target: "(any frame, e.g. the spinner)"))
        for (name, samples) in [("scroll", scrolling), ("search", searching)] {
            report.print(
                Figure(
                    name: "browser.key_to_frame.\(name).median", unit: "ms", value: median(samples) * 1000, target: ""))
            report.print(
                Figure(
                    name: "browser.key_to_frame.\(name).p99", unit: "ms", value: percentile(samples, 99) * 1000,
                    target: "≤ 16 ms"))
        }
        report.print(Figure(name: "browser.peak_rss", unit: "MB", value: peaks.max() ?? .nan, target: "≤ 80 MB"))
        try await runBulk(path)
    }

    /// `M` on every item, then each bulk change of all of them and its undo: Space (done),
    /// `p` 3, `o` another owner, each timed to the frame that shows its outcome, with `j`/`k`
    /// typed while it runs (key to frame) and the browser's CPU time; then `y` (a copy of every
    /// item streamed into the clipboard file), timed until the file is in place; and the peak
    /// memory throughout. The store is put back by the undos (what each change wrote, its undo
    /// writes back).
    private func runBulk(_ path: String) async throws {
        var marking: [Double] = []
        var wall: [String: [Double]] = [:]
        var cpu: [String: [Double]] = [:]
        var keys: [Double] = []
        var peaks: [Double] = []
        var copied: [Double] = []
        var copyCPU: [Double] = []
        var copyBytes: [Double] = []
        // The clipboard file goes into $XDG_RUNTIME_DIR: a folder of the benchmark's own.
        let runtime = FileManager.default.temporaryDirectory
            .appendingPathComponent("shelf-benchmarks-runtime-\(getpid())", isDirectory: true)
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: runtime) }
        let clipboardFile = runtime.appendingPathComponent("shelf-clipboard.txt").path
        // Each action: the keys that start it (a prompt's answer after it opened), and text of
        // the frame that shows it done. The needles leave out what the progress line holds in
        // the same columns ("und…", "changing"): the renderer skips cells that did not change.
        let steps: [(name: String, prompt: (key: String, title: String, answer: String)?, key: String, done: String)] =
            [
                ("done.all", nil, " ", "items done"),
                ("done.undo", nil, "u", "items done"),
                ("priority.all", ("p", "Priority of", "3"), "\r", "set priority 3 on"),
                ("priority.undo", nil, "u", "id: set priority 3"),
                ("owner.all", ("o", "Owner of", "user7@example.com"), "\r", "items to User 7"),
                ("owner.undo", nil, "u", "id: give"),
            ]
        for _ in 0..<runs {
            let session = try PseudoTerminal(
                command: [shelfPath, "browse", "--db", path], width: 120, height: 40,
                environment: ["XDG_RUNTIME_DIR=" + runtime.path])
            try session.waitForFrame(containing: "Updated")
            try await Task.sleep(for: .seconds(1))  // the count arrives
            var started = ContinuousClock.now
            session.write("M")
            try session.waitForFrame(containing: "marked")
            marking.append((ContinuousClock.now - started).seconds)
            try await Task.sleep(for: .seconds(1))
            for step in steps {
                if let prompt = step.prompt {
                    session.write(prompt.key)
                    try session.waitForFrame(containing: prompt.title)
                    session.write(prompt.answer)
                    try await Task.sleep(for: .milliseconds(300))
                }
                started = ContinuousClock.now
                let cpuBefore = session.cpuSeconds()
                session.write(step.key)
                var index = 0
                while true {
                    let (elapsed, seen) = try session.keyLatency(
                        after: index % 2 == 0 ? "j" : "k", watching: step.done)
                    index += 1
                    if seen { break }
                    keys.append(elapsed)
                    if ContinuousClock.now - started > .seconds(300) {
                        FileHandle.standardError.write(Data("\(step.name): no frame with \(step.done)\n".utf8))
                        throw CocoaError(.fileReadUnknown)
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
                wall[step.name, default: []].append((ContinuousClock.now - started).seconds)
                cpu[step.name, default: []].append(session.cpuSeconds() - cpuBefore)
                try await Task.sleep(for: .seconds(1))
            }
            // y: every marked item, as text lines, into the clipboard file.
            try? FileManager.default.removeItem(atPath: clipboardFile)
            started = ContinuousClock.now
            let cpuBefore = session.cpuSeconds()
            session.write("y")
            while !FileManager.default.fileExists(atPath: clipboardFile) {
                if ContinuousClock.now - started > .seconds(300) { throw CocoaError(.fileReadUnknown) }
                try await Task.sleep(for: .milliseconds(10))
            }
            copied.append((ContinuousClock.now - started).seconds)
            copyCPU.append(session.cpuSeconds() - cpuBefore)
            let attributes = try? FileManager.default.attributesOfItem(atPath: clipboardFile)
            copyBytes.append(Double(attributes?[.size] as? Int ?? 0) / 1_000_000)
            try? FileManager.default.removeItem(atPath: clipboardFile)
            peaks.append(Double(session.peakResidentKilobytes()) / 1024)
            session.write("q")
            session.waitForExit()
        }
        report.print(
            Figure(name: "browser.mark_all.frame", unit: "ms", value: median(marking) * 1000, target: "≤ 50 ms"))
        for step in steps {
            report.print(
                Figure(
                    name: "browser.bulk.\(step.name)", unit: "s", value: median(wall[step.name] ?? []), target: "≤ 5 s")
            )
            report.print(
                Figure(
                    name: "browser.bulk.\(step.name).cpu", unit: "s", value: median(cpu[step.name] ?? []),
                    target: "(of the wall time)"))
        }
        report.print(
            Figure(
                name: "browser.key_to_frame.during_bulk.p99", unit: "ms", value: percentile(keys, 99) * 1000,
                target: "≤ 16 ms"))
        report.print(
            Figure(
                name: "browser.key_to_frame.during_bulk.median", unit: "ms", value: median(keys) * 1000, target: ""))
        report.print(Figure(name: "browser.copy_all", unit: "s", value: median(copied), target: "≤ 3 s"))
        report.print(
            Figure(name: "browser.copy_all.cpu", unit: "s", value: median(copyCPU), target: "(of the wall time)"))
        report.print(Figure(name: "browser.copy_all.file", unit: "MB", value: median(copyBytes), target: ""))
        report.print(
            Figure(name: "browser.bulk.peak_rss", unit: "MB", value: peaks.max() ?? .nan, target: "≤ 100 MB"))
    }

    private func runSQLite(_ path: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, sql]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
    }
}

enum Formatting {
    static func thousands(_ value: Int) -> String {
        let digits = String(value)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return result
    }
}

/// A process on a pseudo-terminal whose output is read frame by frame: a frame ends with
/// the end of synchronized output (`ESC [ ? 2026 l`).
final class PseudoTerminal {
    private let master: Int32
    private let pid: pid_t
    private var output: [UInt8] = []
    private static let frameEnd = Array("\u{1B}[?2026l".utf8)

    init(command: [String], width: Int, height: Int, environment extra: [String] = []) throws {
        var master: Int32 = 0
        var slave: Int32 = 0
        var size = winsize(ws_row: UInt16(height), ws_col: UInt16(width), ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else { throw CocoaError(.fileNoSuchFile) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        for fd in [Int32(0), 1, 2] { posix_spawn_file_actions_adddup2(&actions, slave, fd) }
        posix_spawn_file_actions_addclose(&actions, master)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        posix_spawnattr_setflags(&attributes, 0x80)  // POSIX_SPAWN_SETSID: its own session, like a terminal tab
        let environment = ["TERM=xterm-256color", "HOME=" + NSTemporaryDirectory(), "PATH=/usr/bin:/bin"] + extra
        var cArguments = command.map { strdup($0) } + [nil]
        var cEnvironment = environment.map { strdup($0) } + [nil]
        var pid = pid_t()
        let status = posix_spawn(&pid, command[0], &actions, &attributes, &cArguments, &cEnvironment)
        for pointer in cArguments + cEnvironment { free(pointer) }
        posix_spawn_file_actions_destroy(&actions)
        posix_spawnattr_destroy(&attributes)
        close(slave)
        guard status == 0 else { throw CocoaError(.executableLoad) }
        self.master = master
        self.pid = pid
    }

    deinit {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(master)
    }

    func write(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
    }

    /// Reads until a frame whose text contains `text` has ended.
    func waitForFrame(containing text: String, timeout: Duration = .seconds(60)) throws {
        let needle = Array(text.utf8)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let end = output.firstRange(of: Self.frameEnd) {
                let frame = Array(output[..<end.upperBound])
                output.removeSubrange(..<end.upperBound)
                if needle.isEmpty || frame.firstRange(of: needle) != nil { return }
                continue
            }
            do {
                try readSome(until: deadline)
            } catch {
                FileHandle.standardError.write(
                    Data("no frame with \(text); output so far: ".utf8) + Data(output.suffix(600)) + Data("\n".utf8))
                throw error
            }
        }
        throw CocoaError(.fileReadUnknown)
    }

    /// Sends `keys` and returns the time until the next frame ends.
    func timeToNextFrame(after keys: String) throws -> Double {
        output.removeAll()
        let start = ContinuousClock.now
        write(keys)
        let deadline = start + .seconds(10)
        while output.firstRange(of: Self.frameEnd) == nil {
            try readSome(until: deadline)
        }
        let elapsed = (ContinuousClock.now - start).seconds
        // Let the frames this key caused settle before the next key.
        Thread.sleep(forTimeInterval: 0.02)
        drain()
        return elapsed
    }

    /// Sends `keys`, returns the time until the next frame ends, and whether any output read
    /// until the frames settle (20 ms) holds `needle`.
    func keyLatency(after keys: String, watching needle: String) throws -> (Double, Bool) {
        output.removeAll()
        let start = ContinuousClock.now
        write(keys)
        let deadline = start + .seconds(10)
        while output.firstRange(of: Self.frameEnd) == nil {
            try readSome(until: deadline)
        }
        let elapsed = (ContinuousClock.now - start).seconds
        Thread.sleep(forTimeInterval: 0.02)
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while poll(&descriptor, 1, 0) > 0 {
            let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            output += buffer[..<count]
        }
        let seen = output.firstRange(of: Array(needle.utf8)) != nil
        output.removeAll()
        return (elapsed, seen)
    }

    private func drain() {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while poll(&descriptor, 1, 0) > 0 {
            let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            if count <= 0 { break }
        }
        output.removeAll()
    }

    private func readSome(until deadline: ContinuousClock.Instant) throws {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        let remaining = max(0, Int((deadline - ContinuousClock.now).seconds * 1000))
        guard poll(&descriptor, 1, Int32(min(remaining, 1000))) > 0 else {
            if ContinuousClock.now >= deadline { throw CocoaError(.fileReadUnknown) }
            return
        }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
        guard count > 0 else { throw CocoaError(.fileReadUnknown) }
        output.append(contentsOf: buffer[..<count])
    }

    /// The process's CPU time so far, user and system, in seconds (all its threads); 0 when
    /// /proc cannot be read.
    func cpuSeconds() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return 0 }
        // After the command name (which may hold spaces): state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The process's peak resident memory (VmHWM), in kilobytes.
    func peakResidentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    /// Waits up to five seconds for the process to end (it is killed on release otherwise).
    func waitForExit() {
        var status: Int32 = 0
        for _ in 0..<500 where waitpid(pid, &status, WNOHANG) == 0 {
            usleep(10_000)
        }
    }
}
