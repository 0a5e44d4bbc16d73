// One privacy-budget ledger node per source dataset.
CREATE CONSTRAINT graphanon_budget_dataset IF NOT EXISTS
FOR (b:PrivacyBudget) REQUIRE b.dataset IS UNIQUE
