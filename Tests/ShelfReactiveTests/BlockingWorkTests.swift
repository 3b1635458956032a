import Foundation
import Synchronization
import Testing

@testable import ShelfReactive

/// The one bridge from tasks to blocking work: off the cooperative threads, and cancellation
/// as `NIOThreadPool.runIfActive` has it.
@Suite("BlockingWork")
struct BlockingWorkTests {
    @Test func runsOnAThreadOfItsOwnAndReturnsTheResult() async throws {
        let value = try await BlockingWork.run { _ in (Thread.isMainThread, 42) }
        #expect(value.1 == 42)
        #expect(value.0 == false)
    }

    @Test func aTaskCancelledBeforeItStartsNeverRunsTheWork() async throws {
        let ran = Atomic(false)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await BlockingWork.run { _ in ran.store(true, ordering: .relaxed) }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        let didRun = ran.load(ordering: .relaxed)
        #expect(didRun == false)
    }

    @Test func cancellingARunningTaskSetsTheFlagAndCallsOnCancel() async throws {
        let started = Atomic(false)
        let woken = Atomic(false)
        let task = Task {
            let wake: @Sendable () -> Void = { woken.store(true, ordering: .relaxed) }
            return try await BlockingWork.run(onCancel: wake) { cancellation in
                started.store(true, ordering: .relaxed)
                // Blocks until cancelled (a read between rows checks the same way).
                let deadline = Date().addingTimeInterval(60)
                while Date() < deadline {
                    try cancellation.check()
                    usleep(1000)
                }
                return 0
            }
        }
        let deadline = Date().addingTimeInterval(30)
        while !started.load(ordering: .relaxed), Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let wasWoken = woken.load(ordering: .relaxed)
        #expect(wasWoken)
    }

    @Test func workThatEndsWithItsOwnErrorAfterACancelReportsTheCancel() async throws {
        struct Stopped: Error {}
        let started = Atomic(false)
        let task = Task {
            try await BlockingWork.run { cancellation in
                started.store(true, ordering: .relaxed)
                while !cancellation.isCancelled { usleep(1000) }
                throw Stopped()
            }
        }
        let deadline = Date().addingTimeInterval(30)
        while !started.load(ordering: .relaxed), Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
