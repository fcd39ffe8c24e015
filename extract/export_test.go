package extract

// ParseAnswerForTest exposes parseAnswer to the fuzz test.
func ParseAnswerForTest(answer string) ([]Candidate, error) { return parseAnswer(answer, "") }
