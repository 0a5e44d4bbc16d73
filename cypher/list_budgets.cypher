MATCH (b:PrivacyBudget)
OPTIONAL MATCH (c:PrivacyCharge)-[:CHARGED_TO]->(b)
RETURN b.dataset AS dataset, b.neighbourhood AS neighbourhood, b.epsilon_total AS epsilon_total,
       b.epsilon_spent AS epsilon_spent, count(c) AS charges
ORDER BY dataset
