import Foundation

/// Runs a command in a fresh process that starts small, for its own wall time and peak RSS.
///
/// A process started by this (large) benchmark process inherits the benchmark's peak-RSS
/// figure: `posix_spawn` shares the parent's memory until `exec`, and Linux carries the old
/// memory's high-water mark into the new program's `ru_maxrss`. So every measured command runs
/// under `/usr/bin/time -f %M`: `time` forks a child of its own (a 1 MB process) that execs
/// the command, and reports that child's peak, which is the command's own. `probe()` checks
/// the method: `true` must report 1–2 MB, not this process's size.
enum FreshProcess {
    struct Measured {
        let seconds: Double
        let peakKilobytes: Int
        var peakMegabytes: Double { Double(peakKilobytes) / 1024 }
    }

    /// Runs `executable` with `arguments` (standard output to `output`, standard input from
    /// `input`, else /dev/null; errors shown) and returns its wall time and peak RSS.
    /// - Throws: `BenchmarkError` when it cannot start or exits with another status than 0.
    static func run(
        _ executable: String, _ arguments: [String], output: String = "/dev/null", input: String? = nil
    ) throws -> Measured {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-time-\(getpid()).txt").path
        defer { unlink(report) }
        let command = ["/usr/bin/time", "-f", "%e %M", "-o", report, executable] + arguments
        let (status, seconds) = try spawn(command, output: output, input: input ?? "/dev/null")
        let described = ([executable] + arguments.map { String($0.prefix(60)) }).joined(separator: " ")
        guard status == 0 else { throw BenchmarkError("\(described) exited with \(status)") }
        // time writes "Command exited with non-zero status N" first when it did; the figures
        // are the last line.
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        guard let line = text.split(separator: "\n").last,
            let kilobytes = line.split(separator: " ").last.flatMap({ Int($0) })
        else { throw BenchmarkError("/usr/bin/time gave no figures for \(described): \(text)") }
        return Measured(seconds: seconds, peakKilobytes: kilobytes)
    }

    /// The peak RSS `true` reports through `run`: 1–2 MB when the method works.
    /// - Throws: `BenchmarkError` when it reports more than 8 MB (the figures would be wrong).
    static func probe() throws -> Measured {
        let measured = try run("/usr/bin/true", [])
        guard measured.peakKilobytes <= 8 * 1024 else {
            throw BenchmarkError(
                "/usr/bin/true reports a peak RSS of \(measured.peakKilobytes) KB under /usr/bin/time: "
                    + "peak figures would include the benchmark's own memory")
        }
        return measured
    }

    /// Runs a command to its end without measuring it (setup steps).
    static func setup(_ command: [String], output: String = "/dev/null", input: String = "/dev/null") throws {
        let (status, _) = try spawn(command, output: output, input: input)
        guard status == 0 else {
            throw BenchmarkError(
                "\(command.map { String($0.prefix(60)) }.joined(separator: " ")) exited with \(status)")
        }
    }

    private static func spawn(_ command: [String], output: String, input: String) throws -> (Int32, Double) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        guard posix_spawn(&pid, command[0], &actions, nil, argv, environ) == 0 else {
            throw BenchmarkError("cannot start \(command[0])")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let seconds = (ContinuousClock.now - start).seconds
        return ((status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F), seconds)
    }
}
