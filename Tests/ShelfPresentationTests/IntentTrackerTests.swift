import Foundation
import Testing

@testable import ShelfPresentation

/// The one way view models run store work: tracked tasks, awaitable, cancellable, ordered
/// when asked, their failures handed to the state.
@MainActor
@Suite("IntentTracker")
struct IntentTrackerTests {
    /// Where a test's tasks write what happened, in order.
    @MainActor final class Log {
        var entries: [String] = []
    }

    @Test func finishedWaitsForTheWorkAndWhatItStarted() async {
        let tracker = IntentTracker()
        let log = Log()
        let gate = Gate()
        let intent = tracker.start(
            {
                await gate.wait()
                log.entries.append("first")
                // Started from inside the intent's task: part of the same intent.
                tracker.start({ log.entries.append("follow-up") }, onFailure: { _ in })
            }, onFailure: { _ in })
        #expect(tracker.runningCount == 1)
        gate.open()
        await intent.finished()
        #expect(log.entries == ["first", "follow-up"])
        #expect(tracker.runningCount == 0)
    }

    @Test func aFailureGoesToItsHandlerAndACancelledOneDoesNot() async {
        struct Refused: Error {}
        let tracker = IntentTracker()
        let log = Log()
        await tracker.start({ throw Refused() }, onFailure: { log.entries.append("failed: \($0 is Refused)") })
            .finished()
        #expect(log.entries == ["failed: true"])

        let gate = Gate()
        let cancelled = tracker.start(
            {
                await gate.wait()
                try Task.checkCancellation()
                log.entries.append("ran to its end")
            }, onFailure: { log.entries.append("reported \($0)") })
        cancelled.cancel()
        gate.open()
        await cancelled.finished()
        #expect(log.entries == ["failed: true"], "a cancelled intent's outcome is dropped")
    }

    @Test func aKeyedTaskReplacesTheRunningOneWithItsKey() async {
        let tracker = IntentTracker()
        let log = Log()
        let gate = Gate()
        let old = tracker.start(
            key: "load",
            {
                await gate.wait()
                log.entries.append(Task.isCancelled ? "old cancelled" : "old shown")
            }, onFailure: { _ in })
        let new = tracker.start(key: "load", { log.entries.append("new shown") }, onFailure: { _ in })
        await new.finished()
        gate.open()
        await old.finished()
        #expect(log.entries == ["new shown", "old cancelled"])
    }

    @Test func serialTasksRunInTheOrderStarted() async {
        let tracker = IntentTracker()
        let log = Log()
        let gate = Gate()
        let first = tracker.start(
            serially: true,
            {
                await gate.wait()
                log.entries.append("1")
            }, onFailure: { _ in })
        let second = tracker.start(serially: true, { log.entries.append("2") }, onFailure: { _ in })
        let unordered = tracker.start({ log.entries.append("unordered") }, onFailure: { _ in })
        await unordered.finished()
        #expect(log.entries == ["unordered"], "the second waits for the first")
        // Cancelled while it waits its turn, a serial task never runs; the next still does.
        let skipped = tracker.start(serially: true, { log.entries.append("skipped") }, onFailure: { _ in })
        let third = tracker.start(serially: true, { log.entries.append("3") }, onFailure: { _ in })
        skipped.task?.cancel()
        gate.open()
        await third.finished()
        await second.finished()
        await first.finished()
        #expect(log.entries == ["unordered", "1", "2", "3"])
    }

    @Test func releasingTheTrackerCancelsItsWork() async {
        let log = Log()
        let gate = Gate()
        var tracker: IntentTracker? = IntentTracker()
        let intent = tracker?.start(
            {
                await gate.wait()
                log.entries.append(Task.isCancelled ? "cancelled" : "not cancelled")
            }, onFailure: { _ in })
        tracker = nil
        gate.open()
        await intent?.finished()
        #expect(log.entries == ["cancelled"])
    }

    @Test func anIntentGroupsTheTasksItsBodyStarts() async {
        let tracker = IntentTracker()
        let log = Log()
        let gate = Gate()
        let intent = tracker.intent {
            tracker.start(
                {
                    await gate.wait()
                    log.entries.append("a")
                }, onFailure: { _ in })
            tracker.start({ log.entries.append("b") }, onFailure: { _ in })
        }
        gate.open()
        await intent.finished()
        #expect(Set(log.entries) == ["a", "b"])
        #expect(Intent.done.task == nil)
        await Intent.done.finished()  // nothing to wait for
    }
}
