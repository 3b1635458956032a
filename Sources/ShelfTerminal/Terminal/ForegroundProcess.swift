#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Runs another program in the foreground of the controlling terminal and waits for it: an
/// editor, a pager. Call it inside `Application.runOutsideScreen(_:)`, so the program finds
/// the terminal as the shell left it.
///
/// The program gets a process group of its own and that group is made the terminal's
/// foreground group (as a shell does for a job), so Ctrl-C and Ctrl-Z typed in it reach it
/// alone, never the application; when it ends, the application's group takes the terminal
/// back. When the application is not in the terminal's foreground group (no job control),
/// the program runs in the application's group. Signals the application catches or ignores
/// are reset to their default actions in the program, and its signal mask is empty. A
/// program stopped by a signal (Ctrl-Z typed in it, or reading the terminal a moment before
/// it was handed over) is continued, since there is no shell here to resume it.
public enum ForegroundProcess {
    /// How the program ended.
    public enum Outcome: Hashable, Sendable {
        /// It exited with this status (0 is success).
        case exited(Int32)
        /// A signal ended it; the signal's number.
        case signaled(Int32)
    }

    /// Starts `arguments[0]` (searched in `PATH` when it has no slash) with the rest as its
    /// arguments and the application's environment, and blocks until it ends.
    /// - Throws: `TerminalError` when it cannot be started (not found, not executable).
    public static func run(_ arguments: [String]) throws -> Outcome {
        guard let program = arguments.first else {
            throw TerminalError(description: "no program to run (the command is empty)")
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [
            SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGTSTP, SIGTTIN, SIGTTOU, SIGCONT, SIGWINCH, SIGPIPE, SIGCHLD,
        ] {
            sigaddset(&defaults, number)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        let terminal: Int32 = 0
        let jobControl = isatty(terminal) == 1 && tcgetpgrp(terminal) == getpgrp()
        var flags = Int32(POSIX_SPAWN_SETSIGDEF) | Int32(POSIX_SPAWN_SETSIGMASK)
        if jobControl {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        let spawned = posix_spawnp(&pid, program, nil, &attributes, argv, environ)
        guard spawned == 0 else {
            throw TerminalError(
                description:
                    "cannot start \(program) (\(String(cString: strerror(spawned)))); check the command and PATH")
        }
        let isTerminal = isatty(terminal) == 1
        if jobControl { _ = tcsetpgrp(terminal, pid) }
        // Ctrl-C and Ctrl-Z make signals again, now that they reach the program (with job
        // control, its group only).
        if isTerminal {
            // Changing the modes from the background raises SIGTTOU unless ignored.
            let previous = signal(SIGTTOU, SIG_IGN)
            setSignalKeys(on: true, terminal: terminal)
            signal(SIGTTOU, previous)
        }
        defer {
            if isTerminal, !jobControl { setSignalKeys(on: false, terminal: terminal) }
            if jobControl {
                // Until the application has the terminal in raw mode again, a Ctrl-C typed would
                // signal the application: the keys stay plain bytes (discarded when raw mode
                // starts).
                let previous = signal(SIGTTOU, SIG_IGN)
                setSignalKeys(on: false, terminal: terminal)
                // Taking the terminal back from the background raises SIGTTOU unless ignored.
                _ = tcsetpgrp(terminal, getpgrp())
                signal(SIGTTOU, previous)
            }
        }
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WUNTRACED)
            if result < 0 {
                if errno == EINTR { continue }
                throw TerminalError(
                    description: "lost track of \(program) (\(String(cString: strerror(errno)))); it may still run")
            }
            if status & 0xFF == 0x7F {  // stopped
                if jobControl { _ = tcsetpgrp(terminal, pid) }
                kill(jobControl ? -pid : pid, SIGCONT)
                continue
            }
            break
        }
        return status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
    }

    /// Turns the terminal's signal keys (Ctrl-C, Ctrl-Z, Ctrl-\: `ISIG`) on or off.
    static func setSignalKeys(on: Bool, terminal: Int32) {
        var modes = termios()
        guard tcgetattr(terminal, &modes) == 0 else { return }
        if on {
            modes.c_lflag |= tcflag_t(ISIG)
        } else {
            modes.c_lflag &= ~tcflag_t(ISIG)
        }
        // Turned on, what was typed before the program had the terminal is dropped: a Ctrl-C
        // typed then was meant as neither text nor signal for the program.
        _ = tcsetattr(terminal, on ? TCSAFLUSH : TCSANOW, &modes)
    }
}
