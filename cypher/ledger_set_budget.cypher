// Creates the ledger of a dataset or sets its total ε explicitly. $neighbourhood ("edge" or
// "node") is the relation the budget is stated for: set when the budget is created, never
// changed (the caller refuses a different one, and this transaction rolls back).
MERGE (b:PrivacyBudget {dataset: $dataset})
ON CREATE SET b.epsilon_spent = 0.0, b.created_at = $now, b.neighbourhood = $neighbourhood
SET b.epsilon_total = $epsilon_total, b.updated_at = $now
RETURN b.epsilon_total AS epsilon_total, b.epsilon_spent AS epsilon_spent,
       b.neighbourhood AS neighbourhood
