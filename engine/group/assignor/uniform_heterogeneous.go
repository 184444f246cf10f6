package assignor

import "errors"

func (u Uniform) assignHeterogeneous(topics Topics, ms []Member) (Assignment, error) {
	return nil, errors.New("uniform: members with different subscriptions are not supported yet")
}
