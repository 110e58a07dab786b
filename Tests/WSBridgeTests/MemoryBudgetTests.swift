import XCTest
@testable import WSBridge

/// Server mode: the clients' buffers together (wspipe(1): OPTIONS, Server mode).
final class MemoryBudgetTests: XCTestCase {
    func testTheLimitIsFourMessagesAndAtLeast64MiB() {
        XCTAssertEqual(MemoryBudget(maxMessageSize: 64 << 20).limitBytes, 256 << 20)
        XCTAssertEqual(MemoryBudget(maxMessageSize: 1 << 20).limitBytes, 64 << 20)
        XCTAssertEqual(MemoryBudget(maxMessageSize: Int.max).limitBytes, Int.max)
    }

    func testTheTotalFollowsEachClientsChanges() {
        var budget = MemoryBudget(limitBytes: 100)
        budget.changed(from: 0, to: 60)
        budget.changed(from: 0, to: 30)
        XCTAssertFalse(budget.isExceeded)
        budget.changed(from: 30, to: 50)
        XCTAssertEqual(budget.totalBytes, 110)
        XCTAssertTrue(budget.isExceeded)
        budget.changed(from: 60, to: 0)
        XCTAssertFalse(budget.isExceeded)
    }

    func testBackPressureComesSoonerWithManyClients() {
        let budget = MemoryBudget(limitBytes: 256 << 20)
        XCTAssertEqual(budget.stallThreshold(openClients: 1), ClientRegistry.highWater)
        XCTAssertEqual(budget.stallThreshold(openClients: 0), ClientRegistry.highWater)
        XCTAssertEqual(budget.stallThreshold(openClients: 128), 1 << 20)
        XCTAssertEqual(budget.stallThreshold(openClients: 100_000), 64 << 10, "never below 64 KiB")
        // Half the budget shared: a broadcast that stalls everyone stays within it.
        XCTAssertLessThanOrEqual(budget.stallThreshold(openClients: 1000) * 1000, budget.limitBytes / 2)
    }

    func testARelayMemberMayFall16MiBBehindOrItsShareOfTheBudget() {
        let budget = MemoryBudget(limitBytes: 256 << 20)
        XCTAssertEqual(budget.relayLimit(openClients: 3), ClientRegistry.relayLimit)
        XCTAssertEqual(ClientRegistry.relayLimit, 16 << 20)
        XCTAssertEqual(budget.relayLimit(openClients: 64), 4 << 20, "the budget shared")
        XCTAssertEqual(budget.relayLimit(openClients: 100_000), 256 << 10, "never below 256 KiB")
        // Above the high water: a member is behind (stdin waits for it) before it is dropped.
        for clients in [1, 3, 64, 1000] {
            XCTAssertGreaterThan(budget.relayLimit(openClients: clients), budget.stallThreshold(openClients: clients))
        }
    }

    func testTheVictimHoldsTheMost() {
        XCTAssertEqual(MemoryBudget.victim([3, 9, 1, 9]), 1)
        XCTAssertNil(MemoryBudget.victim([]))
        XCTAssertNil(MemoryBudget.victim([0, 0]), "a client that holds nothing is never dropped for the budget")
        XCTAssertEqual(MemoryBudget.victim([0, 1]), 1)
    }
}
