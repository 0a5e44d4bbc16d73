// Creates the ledger of a dataset with its total ε, once. $neighbourhood ("edge" or "node")
// is the relation the budget is stated for. An existing budget is returned as it is (the
// caller refuses a different total or neighbourhood: changing one is ledger_set_budget).
MERGE (b:PrivacyBudget {dataset: $dataset})
ON CREATE SET b.epsilon_total = $epsilon_total, b.epsilon_spent = 0.0,
              b.neighbourhood = $neighbourhood, b.created_at = $now, b.updated_at = $now
RETURN b.epsilon_total AS epsilon_total, b.epsilon_spent AS epsilon_spent,
       b.neighbourhood AS neighbourhood
