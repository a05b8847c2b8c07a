"""`estimate` for each rule family (`Family.estimator`): the contract's section in, the
family's rules applied, the contract's output out."""
